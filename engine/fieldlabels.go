package engine

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/schemas"
)

// derivedFields are the field labels of built-in kinds that are no path
// of the object: kube-apiserver computes them (its strategies'
// selectable fields), by group and kind.
var derivedFields = map[[2]string]map[string]func(obj []byte) string{
	{"", "Event"}: {"source": eventSource},
}

// eventSource is a core Event's field label source: source.component, or
// reportingComponent for an event that has none (one recorded through
// events.k8s.io), as kube's event strategy computes it.
func eventSource(obj []byte) string {
	if c := gjson.GetBytes(obj, "source.component").Str; c != "" {
		return c
	}
	return gjson.GetBytes(obj, "reportingComponent").Str
}

// derivedField is the computation of rv's field label field, nil when it
// has none.
func derivedField(rv *schemas.ResourceVersion, field string) func([]byte) string {
	if rv == nil || rv.Resource == nil || rv.Resource.CRD != "" {
		return nil
	}
	return derivedFields[[2]string{rv.Resource.Group, rv.Resource.Kind}][field]
}

// labelValue is the value of the field label field of obj, an object in
// rv's version.
func labelValue(rv *schemas.ResourceVersion, obj []byte, field string) string {
	if f := derivedField(rv, field); f != nil {
		return f(obj)
	}
	return fieldValue(obj, field)
}

// fieldValue is the value of a field label as a field selector compares
// it: strings as they are, numbers and booleans as written in JSON, ""
// when absent.
func fieldValue(obj []byte, field string) string {
	v := gjson.GetBytes(obj, gjsonPath(field))
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Number, gjson.True, gjson.False:
		return v.Raw
	default:
		return ""
	}
}

// gjsonPath turns a dot path (spec.color) into a gjson path, escaping the
// characters gjson gives a meaning to.
func gjsonPath(p string) string {
	if !strings.ContainsAny(p, `*?|#@\!{}[]()=<>%`) {
		return p
	}
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?|#@\!{}[]()=<>%`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
