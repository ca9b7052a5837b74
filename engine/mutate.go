package engine

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/schemas"
)

// Mutator changes an object written to a resource as kube-apiserver's
// decoding changes a built-in kind on its way to the internal version:
// a Secret's stringData merged into data, say. It is given the object
// tree of a create, update or patch (after an apply's merge) as soon as
// it is decoded, in the request's version, before defaults, managed
// fields, validation and WriteChecks; it changes obj in place, but never
// its metadata, and returns warnings to answer with.
//
// A plain error is the body's fault, answered as kube-apiserver answers
// a body it cannot decode: 400 "... cannot be handled as a ...", or for a
// patch 422 Invalid on "patch". A Status error is answered as it is.
type Mutator func(version string, obj map[string]any) (warnings []string, err error)

// mutators are the Mutators of the resources that have one.
type mutators byResource[Mutator]

// mutate runs the Mutator of rv's resource, if it has one, on req.
func (ms mutators) mutate(rv *schemas.ResourceVersion, req *request) error {
	m := byResource[Mutator](ms).of(rv.Resource)
	if m == nil {
		return nil
	}
	warnings, err := m(rv.Version, req.obj)
	if err != nil {
		return err
	}
	req.warnings = append(req.warnings, warnings...)
	return nil
}

// body is mutate for a create or update body: a plain error is
// kube-apiserver's 400 for a body it cannot decode.
func (ms mutators) body(rv *schemas.ResourceVersion, req *request) error {
	err := ms.mutate(rv, req)
	if err == nil || isStatus(err) {
		return err
	}
	return cannotHandle(rv, rv.Resource.Kind, rv.Version, err)
}

// patched is mutate for a patched object: a plain error is
// kube-apiserver's 422 for a patch whose result it cannot decode.
func (ms mutators) patched(rv *schemas.ResourceVersion, req *request, patched []byte) error {
	err := ms.mutate(rv, req)
	if err == nil || isStatus(err) {
		return err
	}
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), string(patched), err.Error()),
	})
}

func isStatus(err error) bool {
	var se apierrors.APIStatus
	return errors.As(err, &se)
}
