package schemas

import (
	"slices"
	"strings"
)

// AllVerbs are kube's verbs of a resource's main endpoint, sorted: what a
// resource serves when its x-specd-resource lists no verbs.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// ServedVerbs returns the verbs r's main endpoint serves, sorted: its
// x-specd-resource verbs, or AllVerbs when it lists none. Its
// subresources keep their own verbs.
func (r *Resource) ServedVerbs() []string {
	if r.Verbs == nil {
		return AllVerbs
	}
	return r.Verbs
}

// Serves reports whether r's main endpoint serves verb.
func (r *Resource) Serves(verb string) bool {
	return slices.Contains(r.ServedVerbs(), verb)
}

// decodeVerbs reads the optional verbs list: known verbs, each once, at
// least one. The result is sorted, as discovery lists them; nil when the
// list is absent (every verb).
func (r *resourceDecl) decodeVerbs(d decoder, m map[string]any) {
	if _, given := m["verbs"]; !given {
		return
	}
	at := ptr(r.ext, "verbs")
	verbs := d.strs(m, "verbs", r.ext)
	if verbs == nil {
		return // not a list; reported
	}
	if len(verbs) == 0 {
		d.probs.add(d.file, at, "must list at least one verb (leave verbs out to serve all of them)")
		return
	}
	seen := map[string]bool{}
	for i, v := range verbs {
		switch {
		case !slices.Contains(AllVerbs, v):
			d.probs.add(d.file, ptr(at, index(i)), "unknown verb %q: must be one of %s", v, strings.Join(AllVerbs, ", "))
		case seen[v]:
			d.probs.add(d.file, ptr(at, index(i)), "%q is listed twice", v)
		}
		seen[v] = true
	}
	r.verbs = slices.Sorted(slices.Values(verbs))
}

// verbsString is a verbs list as an error names it.
func verbsString(verbs []string) string {
	if verbs == nil {
		return "every verb (no verbs list)"
	}
	return listString(verbs)
}
