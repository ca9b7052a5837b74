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

// mutate runs the Mutator of rv's resource, if it has one, on req.
func (s *Store) mutate(rv *schemas.ResourceVersion, req *request) error {
	m := s.mutators.of(rv.Resource)
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

// mutateBody is mutate for a create or update body: a plain error is
// kube-apiserver's 400 for a body it cannot decode.
func (s *Store) mutateBody(rv *schemas.ResourceVersion, req *request) error {
	err := s.mutate(rv, req)
	if err == nil || isStatus(err) {
		return err
	}
	return cannotHandle(rv, rv.Resource.Kind, rv.Version, err)
}

// mutatePatched is mutate for a patched object: a plain error is
// kube-apiserver's 422 for a patch whose result it cannot decode.
func (s *Store) mutatePatched(rv *schemas.ResourceVersion, req *request, patched []byte) error {
	err := s.mutate(rv, req)
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
