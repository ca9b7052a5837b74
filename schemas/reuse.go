package schemas

import "slices"

// A Loader assembles the groups of each load again only where their
// declarations changed: a CRD created beside a thousand others of other
// groups re-assembles its own group, and the new Registry holds the
// other groups as the previous load built them. The result is what a
// full assembly gives (TestReuseEqualsFullAssembly): a group's assembly
// reads nothing outside the group's declarations, but for the links of
// kinds stored with another resource (linkStorage), so a group with such
// a kind, or one whose assembly found a problem, is never kept.

// groupInput is one declaration of a group version, as a load hands it
// to assembly: which parsed declaration it copies, the conversion rules
// of a side file given to it, and whether its CRD is being deleted (the
// one thing MarkTerminating changes in place).
type groupInput struct {
	origin      *fileDecl
	rules       *sideRules
	terminating bool
}

// builtGroup is a group as a load assembled it, and its inputs.
type builtGroup struct {
	inputs []groupInput
	group  *Group
}

// inputOf is fd's input; ok is false for a declaration not copied from a
// parsed one (Load's), which no later load can be known to repeat.
func inputOf(fd *fileDecl) (groupInput, bool) {
	in := groupInput{origin: fd.origin, rules: fd.rulesFrom}
	for _, r := range fd.resources {
		in.terminating = in.terminating || r.terminating
	}
	return in, fd.origin != nil
}

// reusable returns the group named name of prev when it was built from
// inputs.
func reusable(prev map[string]*builtGroup, name string, inputs []groupInput) *Group {
	b := prev[name]
	if b == nil || inputs == nil || !slices.Equal(b.inputs, inputs) {
		return nil
	}
	return b.group
}

// keepable tells whether a group just assembled from inputs may be reused
// by a later load: its inputs are known, it links no storage across
// groups, and nothing in it was a problem.
func keepable(inputs []groupInput, kinds []*kindDecls, problemsBefore int, probs *problems) bool {
	if inputs == nil || len(probs.list) != problemsBefore {
		return false
	}
	return !slices.ContainsFunc(kinds, (*kindDecls).borrows)
}
