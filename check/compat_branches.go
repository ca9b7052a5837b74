package check

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// branches compares the allOf, anyOf and oneOf branches of a schema, by
// position: inside a pair of branches every rule applies as it does to the
// schema itself. A branch that goes or comes changes which values are
// valid: a value must match every allOf branch, one anyOf branch at least,
// and exactly one oneOf branch.
func (c fieldCompare) branches(o, n *openapi3.Schema, op, np, path string) {
	for _, kw := range []struct {
		name     string
		old, new openapi3.SchemaRefs
	}{{"allOf", o.AllOf, n.AllOf}, {"anyOf", o.AnyOf, n.AnyOf}, {"oneOf", o.OneOf, n.OneOf}} {
		for i := range max(len(kw.old), len(kw.new)) {
			idx := fmt.Sprint(i)
			switch {
			case i >= len(kw.new):
				c.branchRemoved(kw.name, i, childPointer(op, kw.old[i], kw.name, idx), path)
			case i >= len(kw.old):
				c.branchAdded(kw.name, i, len(kw.old), childPointer(np, kw.new[i], kw.name, idx), path)
			default:
				bc := c
				bc.branch = fmt.Sprintf("%s branch %d", kw.name, i)
				if c.branch != "" {
					bc.branch = c.branch + ", " + bc.branch
				}
				bc.schema(propSchema(kw.old[i]), propSchema(kw.new[i]),
					childPointer(op, kw.old[i], kw.name, idx), childPointer(np, kw.new[i], kw.name, idx), path, false)
			}
		}
	}
}

// branchRemoved: without an anyOf or oneOf branch, the values only it
// accepted are refused; without an allOf branch, fewer checks apply (the
// fields it declared leave the published OpenAPI: a warning).
func (c fieldCompare) branchRemoved(kw string, i int, pointer, path string) {
	sev := c.sev
	what := "values that only it accepted, stored or sent, become invalid"
	if kw == "allOf" {
		sev, what = Warning, "its checks no longer apply, and clients generated from the published OpenAPI lose the fields it declared"
	}
	c.r.add(sev, "branch-removed", c.ov.File, pointer, c.ov, path,
		"%s branch %d of %s is removed: %s%s", kw, i, fieldName(path), what, c.inBranch())
}

// branchAdded: a new allOf branch, a first anyOf or oneOf branch, and any
// new oneOf branch (a value may now match two) can refuse values that
// were valid; another anyOf branch only accepts more.
func (c fieldCompare) branchAdded(kw string, i, had int, pointer, path string) {
	switch {
	case kw == "allOf":
		c.newf("validation-tightened", pointer, path, "%s: new allOf branch %d: values must match it too", fieldName(path), i)
	case had == 0 && i == 0:
		c.newf("validation-tightened", pointer, path, "%s: new %s: values must match its branches", fieldName(path), kw)
	case kw == "oneOf":
		c.newf("validation-tightened", pointer, path, "%s: new oneOf branch %d: a value that matches it and another branch is refused", fieldName(path), i)
	}
}
