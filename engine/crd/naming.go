package crd

import (
	"fmt"
	"slices"
)

// usedNames are the names the other CRDs of a group were accepted with,
// as kube's naming controller collects them.
type usedNames struct {
	resources map[string]bool // plurals, singulars, short names
	kinds     map[string]bool // kinds and list kinds
}

// usedNames are the names of o that the other CRDs of its group hold:
// as accepted, or as overlay last accepted them when it holds them.
func (a *API) usedNames(o *object, overlay *acceptedCache) usedNames {
	u := usedNames{resources: map[string]bool{}, kinds: map[string]bool{}}
	a.mu.Lock()
	defer a.mu.Unlock()
	eachName(o.Spec.Names, func(kind bool, name string) {
		if !a.heldByOther(heldName{o.Spec.Group, kind, name}, o.Meta.Name, overlay) {
			return
		}
		if kind {
			u.kinds[name] = true
		} else {
			u.resources[name] = true
		}
	})
	return u
}

// heldByOther tells whether a CRD other than self holds k, as a.crds
// record it or, for the CRDs overlay holds, as overlay does.
func (a *API) heldByOther(k heldName, self string, overlay *acceptedCache) bool {
	for _, crd := range a.held[k] {
		if crd != self && !overlay.has(crd) {
			return true
		}
	}
	if overlay == nil {
		return false
	}
	for _, crd := range overlay.held[k] {
		if o := a.crds[crd]; crd != self && o != nil && o.Spec.Group == k.group {
			return true
		}
	}
	return false
}

func listKind(n Names) string {
	if n.ListKind != "" || n.Kind == "" {
		return n.ListKind
	}
	return n.Kind + "List"
}

// namesTaken is the NamesAccepted condition of o when another CRD holds
// one of its names, nil when they are free.
func (a *API) namesTaken(o *object) *Condition {
	_, cond := acceptNames(o, a.usedNames(o, nil))
	if cond.Status == "True" {
		return nil
	}
	return &cond
}

// acceptNames is kube's naming controller's decision: the names o gets,
// each requested name that is free or already its own, and the
// NamesAccepted condition, with kube's reason for the last conflict found.
func acceptNames(o *object, used usedNames) (Names, Condition) {
	want, had := o.Spec.Names, o.Status.AcceptedNames
	want.ListKind = listKind(want)
	got := had
	cond := namesOK
	conflict := func(reason string, err error) {
		cond = condition(NamesAccepted, false, reason, err.Error())
	}
	pick := func(requested, accepted string, used map[string]bool, reason string, set *string) {
		if err := freshOrOwn(requested, accepted, used); err != nil {
			conflict(reason, err)
			return
		}
		*set = requested
	}
	pick(want.Plural, had.Plural, used.resources, "PluralConflict", &got.Plural)
	pick(want.Singular, had.Singular, used.resources, "SingularConflict", &got.Singular)
	if !slices.Equal(want.ShortNames, had.ShortNames) {
		if err := shortNamesFree(want.ShortNames, had.ShortNames, used.resources); err != nil {
			conflict("ShortNamesConflict", err)
		} else {
			got.ShortNames = want.ShortNames
		}
	}
	pick(want.Kind, had.Kind, used.kinds, "KindConflict", &got.Kind)
	pick(want.ListKind, had.ListKind, used.kinds, "ListKindConflict", &got.ListKind)
	got.Categories = want.Categories
	return got, cond
}

func freshOrOwn(requested, accepted string, used map[string]bool) error {
	if requested == accepted || !used[requested] {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// shortNamesFree reports every requested short name another CRD holds,
// joined as kube's aggregate error is.
func shortNamesFree(requested, had []string, used map[string]bool) error {
	var msgs []string
	for _, s := range requested {
		if slices.Contains(had, s) {
			continue
		}
		if err := freshOrOwn(s, "", used); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", joinComma(msgs))
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
