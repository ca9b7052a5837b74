package crd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/crdobject"
	"github.com/specd-io/specd/schemas/serving"
)

var kind = schema.GroupKind{Group: Group, Kind: "CustomResourceDefinition"}

// WriteChecks are the engine.Options.WriteChecks of CRDs.
func (a *API) WriteChecks() map[string]engine.WriteCheck {
	return map[string]engine.WriteCheck{Key: a.checkWrite}
}

// checkWrite vets a create or an update of a CRD's spec as the registry
// would take it.
func (a *API) checkWrite(ctx context.Context, req hook.AdmissionRequest) error {
	if req.Subresource != "" || req.OldObject != nil && sameSpec(req.Object, req.OldObject) {
		return nil
	}
	o, err := decode(req.Object)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if errs := validate(o, req.OldObject); len(errs) > 0 {
		return apierrors.NewInvalid(kind, req.Name, errs)
	}
	docs, err := crdobject.Documents(&o.CRD)
	var fe *crdobject.FieldError
	if errors.As(err, &fe) {
		return apierrors.NewInvalid(kind, req.Name, field.ErrorList{field.Invalid(field.NewPath(fe.Field), fe.Value, fe.Detail)})
	}
	if err != nil {
		return err
	}
	if errs := a.checkFileConflict(o); len(errs) > 0 {
		return apierrors.NewInvalid(kind, req.Name, errs)
	}
	return a.checkCompiles(ctx, o, docs)
}

// sameSpec: a write that keeps spec and the allow annotation (status,
// labels, finalizers) is not judged again.
func sameSpec(obj, old []byte) bool {
	const annotation = `metadata.annotations.specd\.io/allow-breaking`
	return gjson.GetBytes(obj, "spec").Raw == gjson.GetBytes(old, "spec").Raw &&
		gjson.GetBytes(obj, annotation).Raw == gjson.GetBytes(old, annotation).Raw
}

// validate is kube's validation of what the documents do not carry.
func validate(o *object, old []byte) field.ErrorList {
	var errs field.ErrorList
	s := o.Spec
	if want := s.Names.Plural + "." + s.Group; o.Meta.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), o.Meta.Name, `must be spec.names.plural+"."+spec.group`))
	}
	if len(s.Versions) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "versions"), nil, "must have exactly one version marked as storage version"))
	}
	if old != nil {
		if g := gjson.GetBytes(old, "spec.group").Str; g != s.Group {
			errs = append(errs, field.Invalid(field.NewPath("spec", "group"), s.Group, "field is immutable"))
		}
	}
	return errs
}

// checkFileConflict refuses a CRD whose resource a schema file declares:
// the files and the API feed one registry.
func (a *API) checkFileConflict(o *object) field.ErrorList {
	res := a.cfg.Registry().Resource(o.Spec.Names.Plural + "." + o.Spec.Group)
	if res == nil || len(res.Versions) == 0 || res.Versions[0].Owner != "" {
		return nil
	}
	msg := fmt.Sprintf("resource %s is already declared by schema file %s; a resource comes from a schema file or from a CustomResourceDefinition, not both",
		res.GroupResource(), res.Versions[0].File)
	return field.ErrorList{field.Invalid(field.NewPath("spec", "names", "plural"), o.Spec.Names.Plural, msg)}
}

// checkCompiles loads docs with every other served CRD and the files, and
// judges the change by the compatibility gate. A CRD whose names another
// CRD holds is checked alone: it is stored, and not served until its names
// are free (NamesAccepted False), as kube does.
func (a *API) checkCompiles(ctx context.Context, o *object, docs []schemas.Declared) error {
	applier := a.bound()
	if applier == nil {
		return apierrors.NewServiceUnavailable("the CustomResourceDefinition API is starting")
	}
	var err error
	if conflict := a.namesTaken(o); conflict == nil {
		err = applier.CheckDeclared(ctx, a.declared(o.Meta.Name, docs))
	} else {
		_, _, err = schemas.NewLoader("").LoadDeclared(docs)
	}
	if err == nil {
		return nil
	}
	if errs := causes(err, o.Meta.Name); len(errs) > 0 {
		return apierrors.NewInvalid(kind, o.Meta.Name, errs)
	}
	a.log.Warn("schemas do not load, for reasons besides this CustomResourceDefinition", "name", o.Meta.Name, "err", err)
	return nil
}

// causes are the problems of err that concern the CRD named name, at its
// fields: those in its documents, and those that name it.
func causes(err error, name string) field.ErrorList {
	problems := problemsOf(err)
	_, refused := serving.Refused(err)
	var errs field.ErrorList
	owner := crdobject.Owner(name)
	for _, p := range problems {
		path, ours := crdobject.FieldPath(p.File, p.Pointer)
		ours = ours && strings.HasPrefix(p.File, owner+" ")
		if !ours && !strings.Contains(p.Message, owner+" ") {
			continue
		}
		if !ours {
			path = "spec"
		}
		errs = append(errs, cause(path, p, refused))
	}
	return errs
}

func cause(path string, p schemas.Problem, refused bool) *field.Error {
	if refused {
		return field.Forbidden(field.NewPath(path), fmt.Sprintf("breaking change: %s; set the annotation %s: \"true\" on the CustomResourceDefinition to allow it",
			p.Message, crdobject.AllowBreakingAnnotation))
	}
	return field.Invalid(field.NewPath(path), field.OmitValueType{}, p.Message)
}

// problemsOf lists the problems of a load error or of the gate's refusal.
func problemsOf(err error) []schemas.Problem {
	var le *schemas.LoadError
	if errors.As(err, &le) {
		return le.Problems
	}
	p, _ := serving.Refused(err)
	return p
}
