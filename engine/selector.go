package engine

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/specd-io/specd/schemas"
)

// Selector picks objects by their labels and by selectable fields, as the
// labelSelector and fieldSelector query parameters do. The zero Selector
// matches everything.
type Selector struct {
	Labels labels.Selector // nil: every object
	Fields fields.Selector // nil: every object
}

// ParseSelector parses the labelSelector and fieldSelector parameters of a
// request on rv. Field selectors may name metadata.name, metadata.namespace
// and rv's selectable fields; anything else is a 400 BadRequest Status,
// worded as kube-apiserver words it.
func ParseSelector(rv *schemas.ResourceVersion, labelSelector, fieldSelector string) (Selector, error) {
	panic("not implemented") // TODO(selectors): implement
}

// Empty reports whether the selector matches every object.
func (s Selector) Empty() bool {
	return (s.Labels == nil || s.Labels.Empty()) && (s.Fields == nil || s.Fields.Empty())
}

// Matches reports whether obj, the JSON bytes of an object in rv's version,
// is selected. It reads only the labels and the selected fields (gjson),
// never decoding the object.
func (s Selector) Matches(rv *schemas.ResourceVersion, obj []byte) bool {
	panic("not implemented") // TODO(selectors): implement
}
