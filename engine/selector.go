package engine

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// The field labels every resource supports.
const (
	fieldName      = "metadata.name"
	fieldNamespace = "metadata.namespace"
)

// ParseSelector parses the labelSelector and fieldSelector parameters of a
// request on rv. Field selectors may name metadata.name, metadata.namespace
// and rv's selectable fields; anything else is a 400 BadRequest Status,
// worded as kube-apiserver words it.
func ParseSelector(rv *schemas.ResourceVersion, labelSelector, fieldSelector string) (Selector, error) {
	var s Selector
	if strings.TrimSpace(labelSelector) != "" {
		ls, err := labels.Parse(labelSelector)
		if err != nil {
			return Selector{}, apierrors.NewBadRequest(err.Error())
		}
		s.Labels = ls
	}
	if strings.TrimSpace(fieldSelector) != "" {
		fs, err := fields.ParseSelector(fieldSelector)
		if err != nil {
			return Selector{}, apierrors.NewBadRequest(err.Error())
		}
		for _, r := range fs.Requirements() {
			if !selectable(rv, r.Field) {
				return Selector{}, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", r.Field))
			}
		}
		s.Fields = fs
	}
	return s, nil
}

// selectable reports whether field may be used in a field selector on rv.
func selectable(rv *schemas.ResourceVersion, field string) bool {
	if field == fieldName || field == fieldNamespace {
		return true
	}
	if rv == nil {
		return false
	}
	for _, f := range rv.SelectableFields {
		if strings.TrimPrefix(f.JSONPath, ".") == field {
			return true
		}
	}
	return derivedField(rv, field) != nil
}

// Empty reports whether the selector matches every object.
func (s Selector) Empty() bool {
	return (s.Labels == nil || s.Labels.Empty()) && (s.Fields == nil || s.Fields.Empty())
}

// Matches reports whether obj, the JSON bytes of an object in rv's version,
// is selected. It reads only the labels and the selected fields (gjson),
// never decoding the object.
func (s Selector) Matches(rv *schemas.ResourceVersion, obj []byte) bool {
	if s.Labels != nil && !s.Labels.Empty() {
		if !s.Labels.Matches(objectLabels(obj)) {
			return false
		}
	}
	if s.Fields != nil && !s.Fields.Empty() {
		reqs := s.Fields.Requirements()
		set := make(fields.Set, len(reqs))
		for _, r := range reqs {
			if _, done := set[r.Field]; !done {
				set[r.Field] = labelValue(rv, obj, r.Field)
			}
		}
		if !s.Fields.Matches(set) {
			return false
		}
	}
	return true
}

// objectLabels reads metadata.labels.
func objectLabels(obj []byte) labels.Set {
	l := gjson.GetBytes(obj, "metadata.labels")
	if !l.IsObject() {
		return labels.Set{}
	}
	set := labels.Set{}
	l.ForEach(func(k, v gjson.Result) bool {
		set[k.String()] = v.String()
		return true
	})
	return set
}
