package harness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What the example schemas (examples/schemas) declare, as the tests expect
// to see it served. Keep in step with those files.

// Resource is one served resource, as discovery should describe it.
type Resource struct {
	Group, Version, Kind, Plural, Singular string
	ShortNames                             []string
	Namespaced                             bool
}

// GVR is the resource's group, version and plural.
func (r Resource) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Plural}
}

// APIVersion is group/version.
func (r Resource) APIVersion() string { return r.Group + "/" + r.Version }

// GroupResource is plural.group, as Kubernetes names a resource in messages.
func (r Resource) GroupResource() string { return r.Plural + "." + r.Group }

var (
	Widgets = Resource{
		Group: "shop.example.com", Version: "v1", Kind: "Widget",
		Plural: "widgets", Singular: "widget", ShortNames: []string{"wg"}, Namespaced: true,
	}
	Warehouses = Resource{
		Group: "shop.example.com", Version: "v1", Kind: "Warehouse",
		Plural: "warehouses", Singular: "warehouse", ShortNames: []string{"wh"}, Namespaced: false,
	}
	ShopBooks = Resource{
		Group: "shop.example.com", Version: "v1", Kind: "Book",
		Plural: "books", Singular: "book", Namespaced: true,
	}
	LibraryBooks = Resource{
		Group: "library.example.com", Version: "v1", Kind: "Book",
		Plural: "books", Singular: "book", ShortNames: []string{"bk"}, Namespaced: true,
	}
	ExampleResources = []Resource{Widgets, Warehouses, ShopBooks, LibraryBooks}
)

// WidgetPrinterColumns are the widget's additionalPrinterColumns, in order,
// as kubectl get prints them after NAME.
var WidgetPrinterColumns = []string{"COLOR", "SIZE", "PHASE", "AGE"}

// WidgetYAML is a valid widget.
func WidgetYAML(namespace, name string) string {
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

// WidgetJSON is a valid widget, as the HTTP and client-go tests send it.
func WidgetJSON(namespace, name string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget",`+
		`"metadata":{"name":%q,"namespace":%q,"labels":{"app":"e2e"}},`+
		`"spec":{"color":"red","size":10}}`, name, namespace)
}

// WidgetObject is a valid widget for the dynamic client.
func WidgetObject(namespace, name string) map[string]any {
	return map[string]any{
		"apiVersion": Widgets.APIVersion(),
		"kind":       Widgets.Kind,
		"metadata":   map[string]any{"name": name, "namespace": namespace, "labels": map[string]any{"app": "e2e"}},
		"spec":       map[string]any{"color": "red", "size": int64(10)},
	}
}

// InvalidWidget breaks one rule of the widget schema; the server must
// answer 422 Invalid with a cause on invalidField.
var InvalidWidget = struct {
	Spec  map[string]any
	Field string // the cause's field, as kube-apiserver names it
	// Cause is the cause as kubectl prints it: field: message.
	Cause string
}{
	Spec:  map[string]any{"color": "red", "size": int64(0)},
	Field: "spec.size",
	Cause: "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
}

// InvalidWidgetYAML is a widget that breaks the rule of InvalidWidget.
func InvalidWidgetYAML(namespace, name string) string {
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

// WarehouseYAML is a valid (cluster-scoped) warehouse.
func WarehouseYAML(name string) string {
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

// WarehouseObject is a valid warehouse for the dynamic client.
func WarehouseObject(name string) map[string]any {
	return map[string]any{
		"apiVersion": Warehouses.APIVersion(),
		"kind":       Warehouses.Kind,
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"address": map[string]any{"city": "Lisbon"}, "capacity": int64(500)},
	}
}

// BookYAML is a valid book of the given group; the two groups' Book kinds
// have different schemas (only the library's has an author).
func BookYAML(r Resource, namespace, name string) string {
	spec := "  title: A Title\n  price: 12.5\n"
	if r.Group == LibraryBooks.Group {
		spec = "  title: A Title\n  author:\n    name: An Author\n"
	}
	return fmt.Sprintf("apiVersion: %s\nkind: Book\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n%s",
		r.APIVersion(), name, namespace, spec)
}

// ManyErrorsWidgetYAML breaks three rules at once; kubectl lists every
// cause, in the order the server gives them.
func ManyErrorsWidgetYAML(namespace, name string) (manifest string, causes []string) {
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
