package check

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/schemas"
)

// fieldCompare walks the schemas of one version, previous and next, side
// by side.
type fieldCompare struct {
	r      *Report
	ov, nv *schemas.ResourceVersion
	sev    Severity // of a breaking change in this version
	// branch names the allOf, anyOf or oneOf branch being compared
	// ("oneOf branch 1"), "" outside branches.
	branch string
}

// childPointer is where a sub-schema is written: its $ref target, or the
// parent's pointer and tokens.
func childPointer(parent string, ref *openapi3.SchemaRef, tokens ...string) string {
	if ref != nil && strings.HasPrefix(ref.Ref, "#/") {
		return strings.TrimPrefix(ref.Ref, "#")
	}
	for _, t := range tokens {
		parent += "/" + schemas.EscapeToken(t)
	}
	return parent
}

func fieldName(path string) string {
	if path == "" {
		return "the object"
	}
	return path
}

func (c fieldCompare) newf(rule, pointer, path, format string, args ...any) {
	c.r.add(c.sev, rule, c.nv.File, pointer, c.nv, path, format+c.inBranch(), args...)
}

// inBranch ends a message about a change inside a branch.
func (c fieldCompare) inBranch() string {
	if c.branch == "" {
		return ""
	}
	return " (in " + c.branch + ")"
}

func (c fieldCompare) schema(o, n *openapi3.Schema, op, np, path string, root bool) {
	if o == nil || n == nil {
		return
	}
	if ot, nt := typeName(o), typeName(n); ot != nt && ot != "" {
		c.newf("type-changed", np+"/type", path, "the type of %s changes from %s to %s", fieldName(path), ot, displayType(nt))
		return
	}
	c.enum(o, n, np, path)
	c.defaults(o, n, np, path)
	c.validations(o, n, np, path)
	if boolExt(o, "x-kubernetes-preserve-unknown-fields") && !boolExt(n, "x-kubernetes-preserve-unknown-fields") {
		c.newf("unknown-fields-pruned", np, path,
			"%s no longer preserves unknown fields: the ones stored are pruned when read", fieldName(path))
	}
	c.listTypes(o, n, np, path)
	c.properties(o, n, op, np, path, root)
	c.required(o, n, np, path, root)
	c.branches(o, n, op, np, path)
	if o.Items != nil && n.Items != nil {
		c.schema(o.Items.Value, n.Items.Value, childPointer(op, o.Items, "items"), childPointer(np, n.Items, "items"), path+"[*]", false)
	}
	oa, na := o.AdditionalProperties.Schema, n.AdditionalProperties.Schema
	if oa != nil && na != nil {
		c.schema(oa.Value, na.Value, childPointer(op, oa, "additionalProperties"), childPointer(np, na, "additionalProperties"), path+"[*]", false)
	}
	if oa != nil && na == nil && !boolExt(n, "x-kubernetes-preserve-unknown-fields") {
		c.newf("field-removed", np, path, "%s is no longer a map: its keys are pruned", fieldName(path))
	}
}

// typeName is the type of s as a change would name it: "" when untyped.
func typeName(s *openapi3.Schema) string {
	if boolExt(s, "x-kubernetes-int-or-string") {
		return "int-or-string"
	}
	var types []string
	for _, t := range s.Type.Slice() {
		if t != "null" {
			types = append(types, t)
		}
	}
	return strings.Join(types, ",")
}

func displayType(t string) string {
	if t == "" {
		return "untyped"
	}
	return t
}

func (c fieldCompare) properties(o, n *openapi3.Schema, op, np, path string, root bool) {
	for _, name := range sortedProps(o) {
		if root && (name == "apiVersion" || name == "kind" || name == "metadata") {
			continue
		}
		oref := o.Properties[name]
		nref, ok := n.Properties[name]
		switch {
		case !ok && c.branch != "":
			c.r.add(c.sev, "field-removed", c.ov.File, childPointer(op, oref, "properties", name), c.ov, path+"."+name,
				"field %s.%s is removed from %s: clients generated from the published OpenAPI lose it, and the values it told apart are checked differently", path, name, c.branch)
			continue
		case !ok:
			c.r.add(c.sev, "field-removed", c.ov.File, childPointer(op, oref, "properties", name), c.ov, path+"."+name,
				"field %s.%s is removed: clients that set it fail or lose it, and stored values are pruned", path, name)
			continue
		}
		c.schema(propSchema(oref), propSchema(nref),
			childPointer(op, oref, "properties", name), childPointer(np, nref, "properties", name), path+"."+name, false)
	}
}

// required: a field that becomes required breaks every client that does
// not send it, unless a default fills it in first.
func (c fieldCompare) required(o, n *openapi3.Schema, np, path string, root bool) {
	was := map[string]bool{}
	for _, f := range o.Required {
		was[f] = true
	}
	for i, f := range n.Required {
		if was[f] || (root && (f == "apiVersion" || f == "kind" || f == "metadata")) {
			continue
		}
		if p := propSchema(n.Properties[f]); p != nil && p.Default != nil {
			continue
		}
		what := "existing field"
		if _, existed := o.Properties[f]; !existed {
			what = "new field"
		}
		c.newf("field-required", fmt.Sprintf("%s/required/%d", np, i), path+"."+f,
			"%s %s.%s is required without a default: clients that do not send it are refused", what, path, f)
	}
}

func (c fieldCompare) enum(o, n *openapi3.Schema, np, path string) {
	if len(n.Enum) == 0 {
		return
	}
	if len(o.Enum) == 0 {
		c.newf("enum-added", np+"/enum", path, "%s is now limited to %s: other values, stored or sent, become invalid", fieldName(path), enumList(n.Enum))
		return
	}
	os, ns := enumSet(o.Enum), enumSet(n.Enum)
	var added, removed []string
	for v := range ns {
		if !os[v] {
			added = append(added, v)
		}
	}
	for v := range os {
		if !ns[v] {
			removed = append(removed, v)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	if len(added) > 0 {
		c.r.add(stableOnly(c.nv.Version), "enum-value-added", c.nv.File, np+"/enum", c.nv, path,
			"%s has new enum value(s) %s: clients that handle every known value do not know them", fieldName(path), strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		c.newf("enum-value-removed", np+"/enum", path,
			"enum value(s) %s of %s are removed: stored objects and clients that use them become invalid", strings.Join(removed, ", "), fieldName(path))
	}
}

func enumSet(vs []any) map[string]bool {
	out := make(map[string]bool, len(vs))
	for _, v := range vs {
		out[jsonString(v)] = true
	}
	return out
}

func enumList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonString(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func jsonString(v any) string {
	b, err := json.Marshal(normalize(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// defaults: a default applies to every stored object that omits the
// field when it is read, so adding, removing or changing one changes
// objects that already exist.
func (c fieldCompare) defaults(o, n *openapi3.Schema, np, path string) {
	switch {
	case o.Default == nil && n.Default == nil:
	case o.Default == nil:
		c.newf("default-changed", np+"/default", path, "%s gets a default (%s): stored objects that omit it change when read", fieldName(path), jsonString(n.Default))
	case n.Default == nil:
		c.newf("default-changed", np, path, "the default of %s (%s) is removed", fieldName(path), jsonString(o.Default))
	case jsonString(o.Default) != jsonString(n.Default):
		c.newf("default-changed", np+"/default", path, "the default of %s changes from %s to %s", fieldName(path), jsonString(o.Default), jsonString(n.Default))
	}
}
