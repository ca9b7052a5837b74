package e2e

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What the example schemas (examples/schemas) declare, as the tests expect
// to see it served. Keep in step with those files.

// resource is one served resource, as discovery should describe it.
type resource struct {
	Group, Version, Kind, Plural, Singular string
	ShortNames                             []string
	Namespaced                             bool
}

func (r resource) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Plural}
}

func (r resource) APIVersion() string { return r.Group + "/" + r.Version }

// GroupResource is plural.group, as Kubernetes names a resource in messages.
func (r resource) GroupResource() string { return r.Plural + "." + r.Group }

var (
	widgets = resource{
		Group: "shop.example.com", Version: "v1", Kind: "Widget",
		Plural: "widgets", Singular: "widget", ShortNames: []string{"wg"}, Namespaced: true,
	}
	warehouses = resource{
		Group: "shop.example.com", Version: "v1", Kind: "Warehouse",
		Plural: "warehouses", Singular: "warehouse", ShortNames: []string{"wh"}, Namespaced: false,
	}
	shopBooks = resource{
		Group: "shop.example.com", Version: "v1", Kind: "Book",
		Plural: "books", Singular: "book", Namespaced: true,
	}
	libraryBooks = resource{
		Group: "library.example.com", Version: "v1", Kind: "Book",
		Plural: "books", Singular: "book", ShortNames: []string{"bk"}, Namespaced: true,
	}
	exampleResources = []resource{widgets, warehouses, shopBooks, libraryBooks}
)

// widgetPrinterColumns are the widget's additionalPrinterColumns, in order,
// as kubectl get prints them after NAME.
var widgetPrinterColumns = []string{"COLOR", "SIZE", "PHASE", "AGE"}

// widgetYAML is a valid widget.
func widgetYAML(namespace, name string) string {
	return fmt.Sprintf(`apiVersion: shop.example.com/v1
kind: Widget
metadata:
  name: %s
  namespace: %s
  labels:
    app: e2e
spec:
  color: red
  size: 10
`, name, namespace)
}

// widgetJSON is a valid widget, as the HTTP and client-go tests send it.
func widgetJSON(namespace, name string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget",`+
		`"metadata":{"name":%q,"namespace":%q,"labels":{"app":"e2e"}},`+
		`"spec":{"color":"red","size":10}}`, name, namespace)
}

// widgetObject is a valid widget for the dynamic client.
func widgetObject(namespace, name string) map[string]any {
	return map[string]any{
		"apiVersion": widgets.APIVersion(),
		"kind":       widgets.Kind,
		"metadata":   map[string]any{"name": name, "namespace": namespace, "labels": map[string]any{"app": "e2e"}},
		"spec":       map[string]any{"color": "red", "size": int64(10)},
	}
}

// invalidWidget breaks one rule of the widget schema; the server must
// answer 422 Invalid with a cause on invalidField.
var invalidWidget = struct {
	Spec  map[string]any
	Field string // the cause's field, as kube-apiserver names it
	// Cause is the cause as kubectl prints it: field: message.
	Cause string
}{
	Spec:  map[string]any{"color": "red", "size": int64(0)},
	Field: "spec.size",
	Cause: "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
}

func invalidWidgetYAML(namespace, name string) string {
	return fmt.Sprintf(`apiVersion: shop.example.com/v1
kind: Widget
metadata:
  name: %s
  namespace: %s
spec:
  color: red
  size: 0
`, name, namespace)
}

// warehouseYAML is a valid (cluster-scoped) warehouse.
func warehouseYAML(name string) string {
	return fmt.Sprintf(`apiVersion: shop.example.com/v1
kind: Warehouse
metadata:
  name: %s
spec:
  address:
    city: Lisbon
  capacity: 500
`, name)
}

func warehouseObject(name string) map[string]any {
	return map[string]any{
		"apiVersion": warehouses.APIVersion(),
		"kind":       warehouses.Kind,
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"address": map[string]any{"city": "Lisbon"}, "capacity": int64(500)},
	}
}

// bookYAML is a valid book of the given group; the two groups' Book kinds
// have different schemas (only the library's has an author).
func bookYAML(r resource, namespace, name string) string {
	spec := "  title: A Title\n  price: 12.5\n"
	if r.Group == libraryBooks.Group {
		spec = "  title: A Title\n  author:\n    name: An Author\n"
	}
	return fmt.Sprintf("apiVersion: %s\nkind: Book\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n%s",
		r.APIVersion(), name, namespace, spec)
}

// manyErrorsWidgetYAML breaks three rules at once; kubectl lists every
// cause, in the order the server gives them.
func manyErrorsWidgetYAML(namespace, name string) (manifest string, causes []string) {
	return fmt.Sprintf(`apiVersion: shop.example.com/v1
kind: Widget
metadata:
  name: %s
  namespace: %s
spec:
  color: purple
  size: 0
  tags: ["a", 3]
`, name, namespace), []string{
			`spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`,
			`spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`,
			`spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"`,
		}
}
