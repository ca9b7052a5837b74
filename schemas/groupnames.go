package schemas

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checkSameNames reports the names of r, another version of ref's kind,
// that differ from ref's: a resource has one set of names and one scope.
func checkSameNames(ref, r *resourceDecl, v string, probs *problems) {
	where := fmt.Sprintf("%s#%s", ref.file, ref.pointer)
	differ := func(field, got, want string) {
		probs.add(r.file, r.at(field), "kind %s has %s %s in version %s but %s in %s; every version of a kind must agree",
			r.kind, field, got, v, want, where)
	}
	if r.plural != ref.plural {
		differ("plural", quote(r.plural), quote(ref.plural))
	}
	if r.singular != ref.singular {
		differ("singular", quote(r.singular), quote(ref.singular))
	}
	if r.scope != ref.scope {
		differ("scope", string(r.scope), string(ref.scope))
	}
	if r.nameValidation != ref.nameValidation {
		differ("nameValidation", string(r.nameValidation), string(ref.nameValidation))
	}
	if r.unconditionalUpdate != ref.unconditionalUpdate {
		differ("unconditionalUpdate", strconv.FormatBool(r.unconditionalUpdate), strconv.FormatBool(ref.unconditionalUpdate))
	}
	if r.noGeneration != ref.noGeneration {
		differ("generation", strconv.FormatBool(!r.noGeneration), strconv.FormatBool(!ref.noGeneration))
	}
	if !slices.Equal(r.shortNames, ref.shortNames) {
		differ("shortNames", listString(r.shortNames), listString(ref.shortNames))
	}
	if !slices.Equal(r.categories, ref.categories) {
		differ("categories", listString(r.categories), listString(ref.categories))
	}
	if !slices.Equal(r.verbs, ref.verbs) {
		differ("verbs", verbsString(r.verbs), verbsString(ref.verbs))
	}
}

// owner is the resource that first claimed a name in a group.
type owner struct {
	kind string
	decl *resourceDecl
}

func (o owner) String() string {
	return fmt.Sprintf("kind %s (%s#%s)", o.kind, o.decl.file, o.decl.pointer)
}

// checkGroupNames reports names that two resources of a group share, as
// the CRD naming controller does: plural and singular names, short names,
// and kinds against list kinds. The later-declared resource is reported.
func checkGroupNames(group string, kinds []*kindDecls, probs *problems) {
	// Sized for every resource's names: growing them was a third of
	// this check in a group of a thousand CRDs.
	names := make(map[string]owner, 2*len(kinds)) // plurals and singulars
	shorts := map[string]owner{}                  // short names
	kindNames := make(map[string]owner, 2*len(kinds))
	for _, k := range kinds {
		res, d := k.res, k.ref
		me := owner{res.Kind, d}
		if o, taken := names[res.Plural]; taken {
			probs.add(d.file, d.at("plural"), "plural %q is already used in group %s by %s", res.Plural, group, o)
		}
		if o, taken := names[res.Singular]; taken && res.Singular != res.Plural {
			probs.add(d.file, d.at("singular"), "singular %q is already used in group %s by %s", res.Singular, group, o)
		}
		claim(names, me, res.Plural, res.Singular)
		for j, s := range res.ShortNames {
			if o, taken := shorts[s]; taken && o.kind != res.Kind {
				probs.add(d.file, ptr(d.at("shortNames"), index(j)), "short name %q is already used in group %s by %s", s, group, o)
			}
			claim(shorts, me, s)
		}
		for _, kn := range []string{res.Kind, res.ListKind} {
			if o, taken := kindNames[kn]; taken {
				probs.add(d.file, d.at("kind"), "kind %s clashes in group %s with the kind or list kind %s of %s", res.Kind, group, kn, o)
			}
		}
		claim(kindNames, me, res.Kind, res.ListKind)
	}
}

func claim(m map[string]owner, o owner, names ...string) {
	for _, n := range names {
		if _, taken := m[n]; !taken {
			m[n] = o
		}
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func listString(l []string) string { return "[" + strings.Join(l, ", ") + "]" }
