package structural

import (
	"encoding/json"
	"strings"

	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// decodeObjectMeta decodes an embedded resource's metadata strictly into
// ObjectMeta, returning the paths (relative to metadata) of unknown fields.
func decodeObjectMeta(v any) (*metav1.ObjectMeta, []string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	meta := &metav1.ObjectMeta{}
	strict, err := kjson.UnmarshalStrict(b, meta)
	if err != nil {
		return nil, nil, err
	}
	var unknown []string
	for _, e := range strict {
		if fe, ok := e.(kjson.FieldError); ok {
			unknown = append(unknown, fe.FieldPath())
		}
	}
	return meta, unknown, nil
}

// coerceEmbedded reduces the metadata of an embedded resource to the fields
// of ObjectMeta, as kube-apiserver does by round-tripping it through the
// Go type. Malformed metadata is left for Validate to report.
func (pr *pruner) coerceEmbedded(x map[string]any) {
	v, ok := x["metadata"]
	if !ok {
		return
	}
	meta, unknown, err := decodeObjectMeta(v)
	if err != nil {
		return
	}
	prefix := pr.p.child("metadata", true)
	for _, u := range unknown {
		pr.removed = append(pr.removed, prefix+"."+u)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(meta)
	if err != nil {
		return
	}
	if meta.CreationTimestamp.IsZero() {
		delete(m, "creationTimestamp")
	}
	x["metadata"] = m
}

// typeField checks apiVersion or kind of an embedded resource, when
// present, as kube-apiserver does: a string, not empty, and well formed by
// wellFormed (which answers "" or what is wrong).
func (v *validator) typeField(x map[string]any, name string, wellFormed func(string) string) {
	val, ok := x[name]
	if !ok {
		return
	}
	s, isStr := val.(string)
	switch {
	case !isStr:
		v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath(name), val, "must be a string"))
	case s == "":
		v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath(name), s, "must not be empty"))
	default:
		if msg := wellFormed(s); msg != "" {
			v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath(name), s, msg))
		}
	}
}

// validateEmbedded checks the type meta of an embedded resource as
// kube-apiserver does (apiVersion and kind required, well-formed) and that
// its metadata is valid ObjectMeta (names, labels, annotations, ...).
func (v *validator) validateEmbedded(x map[string]any) {
	for _, name := range []string{"apiVersion", "kind"} {
		if _, ok := x[name]; !ok {
			v.metaErrs = append(v.metaErrs, field.Required(v.p.fieldPath(name), ""))
		}
	}
	v.typeField(x, "apiVersion", func(s string) string {
		if _, err := schema.ParseGroupVersion(s); err != nil {
			return err.Error()
		}
		return ""
	})
	v.typeField(x, "kind", func(s string) string {
		if errs := utilvalidation.IsDNS1035Label(strings.ToLower(s)); len(errs) > 0 {
			return "may have mixed case, but should otherwise match: " + strings.Join(errs, ",")
		}
		return ""
	})
	if m, ok := x["metadata"]; ok {
		meta, _, err := decodeObjectMeta(m)
		if err != nil {
			v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("metadata"), m, err.Error()))
			return
		}
		if meta.Name == "" {
			meta.Name = "fakename" // embedded objects need no name, as in kube-apiserver
		}
		v.metaErrs = append(v.metaErrs, metavalidation.ValidateObjectMeta(meta, meta.Namespace != "",
			pathvalidation.ValidatePathSegmentName, v.p.fieldPath("metadata"))...)
	}
}
