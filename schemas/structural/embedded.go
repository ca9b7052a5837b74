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

// validateEmbedded checks the type meta of an embedded resource as
// kube-apiserver does (apiVersion and kind required, well-formed) and that
// its metadata is valid ObjectMeta (names, labels, annotations, ...).
func (v *validator) validateEmbedded(x map[string]any) {
	if _, ok := x["apiVersion"]; !ok {
		v.metaErrs = append(v.metaErrs, field.Required(v.p.fieldPath("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		v.metaErrs = append(v.metaErrs, field.Required(v.p.fieldPath("kind"), ""))
	}
	if av, ok := x["apiVersion"]; ok {
		s, isStr := av.(string)
		switch {
		case !isStr:
			v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("apiVersion"), av, "must be a string"))
		case s == "":
			v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("apiVersion"), s, "must not be empty"))
		default:
			if _, err := schema.ParseGroupVersion(s); err != nil {
				v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("apiVersion"), s, err.Error()))
			}
		}
	}
	if k, ok := x["kind"]; ok {
		s, isStr := k.(string)
		switch {
		case !isStr:
			v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("kind"), k, "must be a string"))
		case s == "":
			v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("kind"), s, "must not be empty"))
		default:
			if errs := utilvalidation.IsDNS1035Label(strings.ToLower(s)); len(errs) > 0 {
				v.metaErrs = append(v.metaErrs, field.Invalid(v.p.fieldPath("kind"), s,
					"may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
			}
		}
	}
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
