package structural

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validator collects field errors in kube-apiserver's order: schema errors
// first, then embedded-resource errors, then list-type errors.
type validator struct {
	p        walkPath
	errs     field.ErrorList
	metaErrs field.ErrorList
	listErrs field.ErrorList
	// pair is the old value paired with the one being validated, on an
	// update (ratchet.go).
	pair pairing
}

// kind is the JSON type of a decoded value.
type kind uint8

const (
	kNull kind = iota
	kObject
	kArray
	kString
	kInt
	kFloat
	kBool
)

func kindOf(x any) kind {
	switch x.(type) {
	case map[string]any:
		return kObject
	case []any:
		return kArray
	case string:
		return kString
	case int64:
		return kInt
	case float64:
		return kFloat
	case bool:
		return kBool
	case int, int32:
		return kInt
	}
	return kNull
}

var kindNames = [...]string{kNull: "null", kObject: "object", kArray: "array", kString: "string",
	kInt: "integer", kFloat: "number", kBool: "boolean"}

var kindMasks = [...]typeMask{kObject: tObject, kArray: tArray, kString: tString,
	kInt: tInteger, kFloat: tNumber, kBool: tBoolean}

// value validates x against n as kube-openapi's SchemaValidator does: type,
// allOf/anyOf/oneOf/not, string, format, number, array, enum, object.
// structural is false inside value validations (allOf, ...), where
// embedded-resource and list-type checks do not apply.
//
// It returns kube-openapi's "match count" of the value, by which anyOf and
// oneOf pick the failing alternative whose errors they report.
func (v *validator) value(n *node, x any, structural, root bool) int {
	if structural && v.pair.unchanged(x) {
		return 0
	}
	k := kindOf(x)
	if k == kNull {
		matches := 1
		if n.types != 0 && !n.nullable {
			v.typeErr(n.typeNames, "null")
			matches = 0
		}
		if len(n.enum) > 0 {
			v.enum(n, x)
		}
		return matches
	}
	// The final count, the schema-props and the common (enum) validators.
	matches := 4
	if !root && (n.types != 0 || n.format != "") {
		matches++
		if v.checkType(n, x, k) {
			matches++
		}
	}
	if n.hasValueChecks && (len(n.allOf)+len(n.anyOf)+len(n.oneOf) > 0 || n.not != nil) {
		matches += v.schemaProps(n, x)
	}
	switch k {
	case kString:
		matches++
		if n.formatOK != nil {
			matches++
		}
		if n.hasValueChecks {
			v.str(n, x.(string))
		}
	case kInt, kFloat:
		matches += 2
		if n.hasValueChecks {
			v.number(n, x)
		}
	case kArray:
		matches += v.array(n, x.([]any), structural)
	case kObject:
		if len(n.enum) > 0 {
			v.enum(n, x)
		}
		return matches + v.object(n, x.(map[string]any), structural, root)
	}
	if len(n.enum) > 0 {
		v.enum(n, x)
	}
	return matches
}

func (v *validator) typeErr(typeName, got string) {
	name := v.p.String()
	v.errs = append(v.errs, field.TypeInvalid(v.p.errPath(), got,
		fmt.Sprintf("%s in body must be of type %s: %q", name, typeName, got)))
}

// checkType is kube-openapi's type validator, quirks included.
func (v *validator) checkType(n *node, x any, k kind) bool {
	contains := n.types&kindMasks[k] != 0
	if contains {
		return true
	}
	isFloatInt := k == kFloat && isJSONInteger(x.(float64)) && n.types&tInteger != 0
	isIntFloat := k == kInt && n.types&tNumber != 0
	dataFormat := ""
	switch k {
	case kInt:
		dataFormat = "int64"
	case kFloat:
		dataFormat = "float64"
	}
	if k != kString && k != kArray && n.format != "" && !(dataFormat == n.format || isFloatInt || isIntFloat) {
		v.typeErr(n.format, dataFormat)
		return false
	}
	if n.types&(tNumber|tInteger) == 0 && n.format != "" && (k == kString || k == kArray) {
		return true
	}
	if !(isFloatInt || isIntFloat) {
		v.typeErr(n.typeNames, kindNames[k])
		return false
	}
	return true
}

// str is kube-openapi's string and format validators: the first failing of
// maxLength, minLength, pattern; then the format.
func (v *validator) str(n *node, s string) {
	if n.maxLength >= 0 || n.minLength >= 0 {
		l := int64(utf8.RuneCountInString(s))
		switch {
		case n.maxLength >= 0 && l > n.maxLength:
			v.errs = append(v.errs, field.TooLong(v.p.errPath(), "", int(n.maxLength)))
			goto format
		case n.minLength >= 0 && l < n.minLength:
			v.errs = append(v.errs, field.Invalid(v.p.errPath(), s,
				fmt.Sprintf("%s in body should be at least %d chars long", v.p.String(), n.minLength)))
			goto format
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		v.errs = append(v.errs, field.Invalid(v.p.errPath(), s,
			fmt.Sprintf("%s in body should match '%s'", v.p.String(), n.pattern.src)))
	}
format:
	if n.formatOK != nil && !n.formatOK(s) {
		v.errs = append(v.errs, field.TypeInvalid(v.p.errPath(), s,
			fmt.Sprintf("%s in body must be of type %s: %q", v.p.String(), n.format, s)))
	}
}

// array validates the items, then minItems, maxItems and uniqueItems.
func (v *validator) array(n *node, a []any, structural bool) int {
	matches := 2
	if structural && n.listType != "" {
		v.listType(n, a)
	}
	if n.items != nil {
		for i, x := range a {
			v.p.pushIndex(i)
			prev := v.pair.item(n, x)
			matches += v.value(n.items, x, structural, false)
			v.pair = prev
			v.p.pop()
		}
	}
	if n.minItems >= 0 && int64(len(a)) < n.minItems {
		v.errs = append(v.errs, field.Invalid(v.p.errPath(), int64(len(a)),
			fmt.Sprintf("%s in body should have at least %d items", v.p.String(), n.minItems)))
	}
	if n.maxItems >= 0 && int64(len(a)) > n.maxItems {
		v.errs = append(v.errs, field.TooMany(v.p.errPath(), len(a), int(n.maxItems)))
	}
	if n.unique && hasDuplicates(a) {
		v.errs = append(v.errs, field.Invalid(v.p.errPath(), "",
			fmt.Sprintf("%s in body shouldn't contain duplicates", v.p.String())))
	}
	return matches
}

// object validates min/maxProperties, additional properties, declared
// properties (sorted) and required fields. At the root apiVersion, kind and
// metadata are skipped.
func (v *validator) object(n *node, m map[string]any, structural, root bool) int {
	matches := 1
	if n.minProps >= 0 && int64(len(m)) < n.minProps {
		v.errs = append(v.errs, field.Invalid(v.p.errPath(), int64(len(m)),
			fmt.Sprintf("%s in body should have at least %d properties", v.p.String(), n.minProps)))
	}
	if n.maxProps >= 0 && int64(len(m)) > n.maxProps {
		v.errs = append(v.errs, field.TooMany(v.p.errPath(), len(m), int(n.maxProps)))
	}
	if n.noAdditional || n.additional != nil {
		matches += v.additional(n, m, structural, root)
	}
	for _, name := range n.propNames {
		if root && isMetaField(name) {
			continue
		}
		if x, ok := m[name]; ok {
			v.p.pushKey(name)
			prev := v.pair.key(name)
			matches += v.value(n.props[name], x, structural, false)
			v.pair = prev
			v.p.pop()
		}
	}
	for _, name := range n.required {
		if root && isMetaField(name) {
			continue
		}
		if _, ok := m[name]; !ok {
			v.errs = append(v.errs, field.Required(field.NewPath(v.p.child(name, false)), ""))
		}
	}
	if structural && n.embedded && !root {
		v.validateEmbedded(m)
	}
	return matches
}

// additional checks the keys that are not declared properties.
func (v *validator) additional(n *node, m map[string]any, structural, root bool) int {
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		if _, ok := n.props[k]; ok || (root && isMetaField(k)) {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	matches := 0
	for _, k := range keys {
		if n.noAdditional {
			v.errs = append(v.errs, field.Invalid(v.p.errPath(), k,
				fmt.Sprintf("%s.%s in body is a forbidden property", v.p.String(), k)))
			continue
		}
		v.p.pushAddlKey(k)
		prev := v.pair.key(k)
		matches += v.value(n.additional, m[k], structural, false)
		v.pair = prev
		v.p.pop()
	}
	return matches
}

// enum reports a value that none of the enum values equals.
func (v *validator) enum(n *node, x any) {
	for _, e := range n.enum {
		if enumEqual(x, e) {
			return
		}
	}
	v.errs = append(v.errs, field.NotSupported(v.p.errPath(), x, n.enumQuoted))
}

// compositeErr reports an allOf/anyOf/oneOf/not failure the way
// kube-apiserver does for errors that carry no field.
func (v *validator) compositeErr(msg string) {
	v.errs = append(v.errs, field.Invalid(nil, "", msg))
}

// result is the outcome of validating a value against one alternative.
type result struct {
	errs    field.ErrorList
	matches int
}

// schemaProps evaluates anyOf, oneOf, allOf and not, in kube-openapi's
// order, and returns the match count it contributes.
func (v *validator) schemaProps(n *node, x any) int {
	matches := 1
	if len(n.anyOf) > 0 {
		matches += v.anyOf(n.anyOf, x)
	}
	if len(n.oneOf) > 0 {
		matches += v.oneOf(n.oneOf, x)
	}
	if len(n.allOf) > 0 {
		valid := 0
		for _, b := range n.allOf {
			r := v.branch(b, x)
			if len(r.errs) == 0 {
				valid++
			}
			matches += r.matches
			v.errs = append(v.errs, r.errs...)
		}
		if valid != len(n.allOf) {
			extra := ""
			if valid == 0 {
				extra = ". None validated"
			}
			v.compositeErr(fmt.Sprintf("%q must validate all the schemas (allOf)%s", v.p.String(), extra))
		}
	}
	if n.not != nil && len(v.branch(n.not, x).errs) == 0 {
		v.compositeErr(fmt.Sprintf("%q must not validate the schema (not)", v.p.String()))
	}
	return matches
}

// anyOf accepts x if one alternative does; otherwise it reports the errors
// of the failing alternative with the highest match count (the first on a
// tie), as kube-openapi does.
func (v *validator) anyOf(bs []*node, x any) int {
	var best *result
	for _, b := range bs {
		r := v.branch(b, x)
		if len(r.errs) == 0 {
			return r.matches
		}
		if best == nil || r.matches > best.matches {
			best = &r
		}
	}
	v.compositeErr(fmt.Sprintf("%q must validate at least one schema (anyOf)", v.p.String()))
	v.errs = append(v.errs, best.errs...)
	return best.matches
}

// oneOf accepts x if exactly one alternative does.
func (v *validator) oneOf(bs []*node, x any) int {
	valid := 0
	var best, first *result
	for _, b := range bs {
		r := v.branch(b, x)
		if len(r.errs) == 0 {
			valid++
			best = nil
			if first == nil {
				first = &r
			}
			continue
		}
		if valid == 0 && (best == nil || r.matches > best.matches) {
			best = &r
		}
	}
	if valid == 1 {
		return first.matches
	}
	extra := "Found none valid"
	if valid > 1 {
		extra = fmt.Sprintf("Found %d valid alternatives", valid)
	}
	v.compositeErr(fmt.Sprintf("%q must validate one and only one schema (oneOf). %s", v.p.String(), extra))
	if best == nil {
		return 0
	}
	v.errs = append(v.errs, best.errs...)
	return best.matches
}

// branch validates x against one alternative, at the same path.
func (v *validator) branch(b *node, x any) result {
	sub := validator{p: v.p}
	matches := sub.value(b, x, false, false)
	return result{errs: sub.errs, matches: matches}
}

func (s *Schema) validate(obj, old map[string]any) field.ErrorList {
	v := validator{p: walkPath{segs: make([]seg, 0, 16)}, pair: pairing{old: old, paired: old != nil}}
	v.value(s.root, obj, true, true)
	if len(v.metaErrs)+len(v.listErrs) == 0 {
		return v.errs
	}
	return append(append(v.errs, v.metaErrs...), v.listErrs...)
}
