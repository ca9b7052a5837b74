package check

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// validations reports every value check that becomes stricter: values
// that were valid, in stored objects or sent by clients, become invalid.
func (c fieldCompare) validations(o, n *openapi3.Schema, np, path string) {
	tight := func(keyword, format string, args ...any) {
		c.newf("validation-tightened", np+"/"+keyword, path, "%s: "+format, append([]any{fieldName(path)}, args...)...)
	}
	if o.Nullable && !n.Nullable {
		tight("nullable", "null is no longer allowed")
	}
	lower := func(keyword string, ov, nv *uint64) {
		if nv != nil && (ov == nil || *nv < *ov) {
			tight(keyword, "%s lowered to %d (was %s)", keyword, *nv, optUint(ov))
		}
	}
	raise := func(keyword string, ov, nv uint64) {
		if nv > ov {
			tight(keyword, "%s raised to %d (was %d)", keyword, nv, ov)
		}
	}
	lower("maxLength", o.MaxLength, n.MaxLength)
	raise("minLength", o.MinLength, n.MinLength)
	lower("maxItems", o.MaxItems, n.MaxItems)
	raise("minItems", o.MinItems, n.MinItems)
	lower("maxProperties", o.MaxProps, n.MaxProps)
	raise("minProperties", o.MinProps, n.MinProps)
	if n.Max != nil && (o.Max == nil || *n.Max < *o.Max) {
		tight("maximum", "maximum lowered to %v (was %s)", *n.Max, optFloat(o.Max))
	}
	if n.Min != nil && (o.Min == nil || *n.Min > *o.Min) {
		tight("minimum", "minimum raised to %v (was %s)", *n.Min, optFloat(o.Min))
	}
	if n.MultipleOf != nil && (o.MultipleOf == nil || *n.MultipleOf != *o.MultipleOf) {
		tight("multipleOf", "multipleOf %v (was %s)", *n.MultipleOf, optFloat(o.MultipleOf))
	}
	if n.Pattern != "" && n.Pattern != o.Pattern {
		tight("pattern", "pattern %q (was %q)", n.Pattern, o.Pattern)
	}
	if n.Format != "" && n.Format != o.Format && typeName(n) == "string" {
		tight("format", "format %q (was %q)", n.Format, o.Format)
	}
	if n.UniqueItems && !o.UniqueItems {
		tight("uniqueItems", "items must now be unique")
	}
	c.celRules(o, n, np, path)
}

// celRules reports every x-kubernetes-validations rule that is new: it may
// refuse values that were valid.
func (c fieldCompare) celRules(o, n *openapi3.Schema, np, path string) {
	var before, after []struct {
		Rule string `json:"rule"`
	}
	if _, err := extension(n, "x-kubernetes-validations", &after); err != nil || len(after) == 0 {
		return
	}
	_, _ = extension(o, "x-kubernetes-validations", &before)
	had := map[string]bool{}
	for _, r := range before {
		had[r.Rule] = true
	}
	for i, r := range after {
		if !had[r.Rule] {
			c.newf("validation-tightened", fmt.Sprintf("%s/x-kubernetes-validations/%d", np, i), path,
				"%s: new validation rule %q", fieldName(path), r.Rule)
		}
	}
}

func optUint(v *uint64) string {
	if v == nil {
		return "unlimited"
	}
	return fmt.Sprint(*v)
}

func optFloat(v *float64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}
