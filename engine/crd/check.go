package crd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
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
	if errs := validateUpdate(o, req.OldObject); len(errs) > 0 {
		return apierrors.NewInvalid(kind, req.Name, errs)
	}
	d, err := declarations(req.Object, nil)
	if err != nil {
		return err
	}
	if err := d.Err(); err != nil {
		return apierrors.NewInvalid(kind, req.Name, causes(err, o.Meta.Name))
	}
	if errs := a.checkFileConflict(o); len(errs) > 0 {
		return apierrors.NewInvalid(kind, req.Name, errs)
	}
	return a.checkLoads(ctx, o, req.Object)
}

// sameSpec: a write that keeps spec and the annotations (status, labels,
// finalizers) is not judged again.
func sameSpec(obj, old []byte) bool {
	return gjson.GetBytes(obj, "spec").Raw == gjson.GetBytes(old, "spec").Raw &&
		gjson.GetBytes(obj, "metadata.annotations").Raw == gjson.GetBytes(old, "metadata.annotations").Raw
}

// validateUpdate is kube's validation of an update that the
// declarations do not see.
func validateUpdate(o *object, old []byte) field.ErrorList {
	if old == nil {
		return nil
	}
	if g := gjson.GetBytes(old, "spec.group").Str; g != o.Spec.Group {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "group"), o.Spec.Group, "field is immutable")}
	}
	return nil
}

// checkFileConflict refuses a CRD whose resource a schema file declares:
// the files and the API feed one registry.
func (a *API) checkFileConflict(o *object) field.ErrorList {
	res := a.cfg.Registry().Resource(o.Spec.Names.Plural + "." + o.Spec.Group)
	if res == nil || len(res.Versions) == 0 || ownedBy(res, o.Meta.Name) {
		return nil
	}
	msg := fmt.Sprintf("resource %s is already declared by schema file %s; a resource comes from a schema file or from a CustomResourceDefinition object, not both",
		res.GroupResource(), res.Versions[0].File)
	return field.ErrorList{field.Invalid(field.NewPath("spec", "names", "plural"), o.Spec.Names.Plural, msg)}
}

// checkLoads loads the CRD with every other served CRD and the files,
// and judges the change by the compatibility gate. A CRD whose names
// another CRD holds is not served until they are free (NamesAccepted
// False), as kube does: it is judged under the names it is served with,
// if any, or else alone.
func (a *API) checkLoads(ctx context.Context, o *object, data []byte) error {
	if a.cfg.Schemas == nil {
		return apierrors.NewServiceUnavailable("the CustomResourceDefinition API is starting")
	}
	var names *Names
	if a.namesTaken(o) != nil {
		old := a.get(o.Meta.Name)
		if old == nil || !old.served() {
			return nil // checked alone above
		}
		names = &old.Status.AcceptedNames
	}
	d, err := declarations(data, names)
	if err != nil {
		return err
	}
	err = a.cfg.Schemas.CheckDeclared(ctx, a.cfg.Stored, d)
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
// fields: those in it, and those that name it.
func causes(err error, name string) field.ErrorList {
	_, refused := serving.Refused(err)
	src := source(name)
	var errs field.ErrorList
	for _, p := range problemsOf(err) {
		path := "spec"
		switch {
		case p.File == src:
			path = fieldPath(p.Pointer)
		case !strings.Contains(p.Message, src):
			continue
		}
		errs = append(errs, cause(path, p, refused))
	}
	return errs
}

func cause(path string, p schemas.Problem, refused bool) *field.Error {
	if refused {
		return field.Forbidden(field.NewPath(path), fmt.Sprintf("breaking change: %s; set the annotation %s: \"true\" on the CustomResourceDefinition to allow it",
			p.Message, schemas.AllowBreakingAnnotation))
	}
	return field.Invalid(field.NewPath(path), field.OmitValueType{}, p.Message)
}

// fieldPath writes a JSON pointer into a CRD as kube's field path:
// /spec/versions/0/name is spec.versions[0].name.
func fieldPath(pointer string) string {
	if pointer == "" || pointer == "/" {
		return "<root>"
	}
	var b strings.Builder
	for i, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		if n, err := strconv.Atoi(seg); err == nil && i > 0 {
			fmt.Fprintf(&b, "[%d]", n)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
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
