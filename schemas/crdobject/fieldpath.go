package crdobject

import (
	"fmt"
	"strconv"
	"strings"
)

// extFields are the CRD fields of x-specd-resource's fields.
var extFields = map[string]string{
	"kind": "spec.names.kind", "plural": "spec.names.plural", "singular": "spec.names.singular",
	"shortNames": "spec.names.shortNames", "categories": "spec.names.categories", "scope": "spec.scope",
	"printerColumns": "additionalPrinterColumns", "selectableFields": "selectableFields",
	"subresources": "subresources", "deprecated": "deprecated", "deprecationWarning": "deprecationWarning",
	"storage": "storage", "served": "served",
}

// FieldPath maps a problem in a document of Documents (its Declared.Name
// and JSON pointer) to the CRD's field it comes from, such as
// spec.versions[0].schema.openAPIV3Schema.properties.spec; ok is false
// for a document that is not a CRD's.
func FieldPath(name, pointer string) (path string, ok bool) {
	var crd string
	var i int
	if _, err := fmt.Sscanf(name, "customresourcedefinition %s spec.versions[%d]", &crd, &i); err != nil {
		return "", false
	}
	version := fmt.Sprintf("spec.versions[%d]", i)
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	switch {
	case pointer == "" || pointer == "/":
		return version, true
	case parts[0] == "x-specd":
		return "spec.group", true
	case parts[0] == "info":
		return version + ".name", true
	case len(parts) >= 4 && parts[3] == "x-specd-resource":
		return extPath(version, parts[4:]), true
	case len(parts) >= 3 && parts[0] == "components":
		return version + ".schema.openAPIV3Schema" + dotted(parts[3:]), true
	}
	return version, true
}

func extPath(version string, rest []string) string {
	if len(rest) == 0 {
		return "spec.names"
	}
	f, ok := extFields[rest[0]]
	if !ok {
		return version
	}
	if !strings.HasPrefix(f, "spec.") {
		f = version + "." + f
	}
	return f + dotted(rest[1:])
}

// dotted writes JSON pointer segments as a field path's.
func dotted(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
		if n, err := strconv.Atoi(p); err == nil {
			fmt.Fprintf(&b, "[%d]", n)
			continue
		}
		b.WriteString("." + p)
	}
	return b.String()
}
