package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine/internal/jsontree"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// admitter calls the defaulting and validation plugins of a write.
type admitter struct {
	// admission is the plugin host; nil when specd runs without one.
	admission hook.Admission
	// checks are Options.WriteChecks, by group and resource.
	checks byResource[WriteCheck]
	log    *slog.Logger
}

// defaultCreate runs the defaulting plugin bound to the version w writes
// on a new object; see pluginDefault.
func (a admitter) defaultCreate(ctx context.Context, w *write, req *request) (*request, error) {
	rv := w.Version
	if rv.Hooks == nil || rv.Hooks.Default == "" {
		return req, nil
	}
	if err := req.setNamespace(rv.Resource, w.Namespace); err != nil {
		return nil, err
	}
	nreq, err := a.pluginDefault(ctx, w, req, nil)
	if err != nil || nreq == req {
		return nreq, err
	}
	if rv.StatusSubresource {
		delete(nreq.obj, "status")
	}
	return nreq, a.checkDefaulted(rv, req, nreq)
}

// defaultUpdate runs the defaulting plugin bound to the version w writes
// on an update of old; what the plugin changed is kept as the write may
// change it: only status on the status subresource, everything but
// status on the main endpoint of a resource with one.
func (a admitter) defaultUpdate(ctx context.Context, w *write, req *request, old *stored) (*request, error) {
	rv := w.Version
	if rv.Hooks == nil || rv.Hooks.Default == "" {
		return req, nil
	}
	nreq, err := a.pluginDefault(ctx, w, req, old.obj)
	if err != nil || nreq == req {
		return nreq, err
	}
	switch {
	case w.status():
		// req's object is what the status write may change already.
		nreq.obj = withStatusOf(req.obj, nreq.obj, false)
	case rv.StatusSubresource:
		keepStatus(nreq.obj, old.obj)
	}
	return nreq, a.checkDefaulted(rv, req, nreq)
}

// pluginDefault calls the defaulting plugin bound to rv with req's object
// and returns the request made of its answer, decoded and pruned, with
// req's name, namespace and warnings (checkDefaulted then defaults it by
// the schema again, as kube-apiserver defaults after a mutating webhook).
// It returns req itself when the plugin could not answer and its
// failurePolicy is Ignore.
func (a admitter) pluginDefault(ctx context.Context, w *write, req *request, old map[string]any) (*request, error) {
	rv := w.Version
	h, r := rv.Hooks, rv.Resource
	// jsontree writes what encoding/json would (less its HTML escaping,
	// which JSON readers undo), without its reflection.
	obj, err := jsontree.Append(nil, req.obj)
	if err != nil {
		return nil, fmt.Errorf("engine: encode object for plugin %q: %w", h.Default, err)
	}
	var oldObj []byte
	if old != nil {
		if oldObj, err = jsontree.Append(nil, old); err != nil {
			return nil, fmt.Errorf("engine: encode stored object for plugin %q: %w", h.Default, err)
		}
	}
	ar := w.admissionRequest(rv.Version, req.meta.Namespace, req.meta.Name, obj, oldObj)
	out, err := a.callDefault(ctx, h, ar)
	if err != nil {
		if err := a.pluginFailed(h, "default", h.Default, r, err); err != nil {
			return nil, err
		}
		return req, nil // Ignore: write on without the plugin
	}
	nreq, err := decodeWrite(rv, out, FieldValidationIgnore, nil)
	if err != nil {
		return nil, pluginBroken(h.Default, "default", fmt.Errorf("its answer is not a %s %s: %w", rv.APIVersion(), r.Kind, err))
	}
	if nreq.meta.Name != req.meta.Name {
		return nil, pluginBroken(h.Default, "default", fmt.Errorf("it changed metadata.name from %q to %q", req.meta.Name, nreq.meta.Name))
	}
	if err := nreq.setNamespace(r, req.meta.Namespace); err != nil {
		return nil, pluginBroken(h.Default, "default", fmt.Errorf("it changed metadata.namespace from %q to %q", req.meta.Namespace, nreq.meta.Namespace))
	}
	nreq.warnings = req.warnings
	return nreq, nil
}

// checkDefaulted defaults the plugin's object with the schema and
// refuses it, naming the plugin, when it fails the schema although the
// object it was given did not.
func (a admitter) checkDefaulted(rv *schemas.ResourceVersion, before, after *request) error {
	if rv.Schema == nil {
		return nil
	}
	rv.Schema.Default(after.obj)
	errs := rv.Schema.Validate(after.obj)
	if len(errs) == 0 || len(rv.Schema.Validate(before.obj)) > 0 {
		// Valid, or the client's own mistakes: the write reports them.
		return nil
	}
	err := apierrors.NewInvalid(groupKind(rv.Resource), after.meta.Name, errs)
	err.ErrStatus.Message += fmt.Sprintf(" (as defaulted by plugin %q)", rv.Hooks.Default)
	return err
}

// validateCreate runs the write check and the validation plugin bound to
// the storage version of the resource w writes on the new object named
// (st, in the storage version), shown without the bookkeeping annotation
// as to a client of that version.
func (a admitter) validateCreate(ctx context.Context, w *write, named *metav1.ObjectMeta, st []byte) error {
	r := w.resource()
	check, h := a.check(r), storageHooks(r)
	if check == nil && !validates(h) {
		return nil
	}
	obj, err := hideBookkeeping(st)
	if err != nil {
		return err
	}
	return a.validate(ctx, r, check, h, w.admissionRequest(r.StorageVersion, named.Namespace, named.Name, obj, nil))
}

// validateUpdate runs the write check and the validation plugin bound to
// the storage version of the resource w writes on an update of the
// stored kv to st, the object named (both in the storage version); they
// see both with kv's resourceVersion and, as a client of the storage
// version, without the bookkeeping annotation.
func (a admitter) validateUpdate(ctx context.Context, w *write, named *metav1.ObjectMeta, st []byte, kv storage.KeyValue) error {
	r := w.resource()
	check, h := a.check(r), storageHooks(r)
	if check == nil && !validates(h) {
		return nil
	}
	obj, old := st, kv.Value
	for _, b := range []*[]byte{&obj, &old} {
		shown, err := hideBookkeeping(*b)
		if err != nil {
			return err
		}
		if *b, err = appendWithResourceVersion(nil, shown, kv.ModRevision); err != nil {
			return err
		}
	}
	return a.validate(ctx, r, check, h, w.admissionRequest(r.StorageVersion, named.Namespace, named.Name, obj, old))
}

// validate runs check (when set), then the validation plugin of h (when
// it binds one).
func (a admitter) validate(ctx context.Context, r *schemas.Resource, check WriteCheck, h *schemas.Hooks, ar hook.AdmissionRequest) error {
	if check != nil {
		if err := check(ctx, ar); err != nil {
			return err
		}
	}
	if !validates(h) {
		return nil
	}
	return a.pluginValidate(ctx, r, h, ar)
}

// validates reports whether h binds a validation plugin.
func validates(h *schemas.Hooks) bool { return h != nil && h.Validate != "" }

// storageHooks returns the hooks of r's storage version.
func storageHooks(r *schemas.Resource) *schemas.Hooks {
	if sv := r.Version(r.StorageVersion); sv != nil {
		return sv.Hooks
	}
	return nil
}

// pluginValidate calls the validation plugin of h; its field errors are a
// 422 Invalid, as the schema's are.
func (a admitter) pluginValidate(ctx context.Context, r *schemas.Resource, h *schemas.Hooks, ar hook.AdmissionRequest) error {
	fes, err := a.callValidate(ctx, h, ar)
	if err != nil {
		return a.pluginFailed(h, "validate", h.Validate, r, err)
	}
	if len(fes) == 0 {
		return nil
	}
	return apierrors.NewInvalid(groupKind(r), ar.Name, fieldErrors(fes))
}

// callDefault calls the defaulting plugin within the binding's timeout.
func (a admitter) callDefault(ctx context.Context, h *schemas.Hooks, ar hook.AdmissionRequest) ([]byte, error) {
	if a.admission == nil {
		return nil, errNoPlugins
	}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	out, err := a.admission.Default(ctx, h.Default, ar)
	if err == nil && len(out) == 0 {
		err = errors.New("it answered no object")
	}
	return out, err
}

// callValidate calls the validation plugin within the binding's timeout.
func (a admitter) callValidate(ctx context.Context, h *schemas.Hooks, ar hook.AdmissionRequest) ([]hook.FieldError, error) {
	if a.admission == nil {
		return nil, errNoPlugins
	}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	return a.admission.Validate(ctx, h.Validate, ar)
}

// errNoPlugins answers a hook call of a Store made without Admission.
var errNoPlugins = errors.New("engine: no plugins are configured")

// pluginFailed applies the failurePolicy of h to a plugin that could not
// answer: Fail is a 500 naming the plugin and the hook, as kube-apiserver
// answers for an admission webhook it cannot call; Ignore logs and lets
// the write go on (nil).
func (a admitter) pluginFailed(h *schemas.Hooks, hook, plugin string, r *schemas.Resource, err error) error {
	admissionFailures.WithLabelValues(plugin, hook, string(h.FailurePolicy)).Inc()
	if h.FailurePolicy == schemas.FailurePolicyIgnore {
		a.log.Warn("plugin failed; failurePolicy Ignore lets the write go on",
			"plugin", plugin, "hook", hook, "resource", r.GroupResource(), "err", err)
		return nil
	}
	return apierrors.NewInternalError(fmt.Errorf("failed calling plugin %q (%s): %w", plugin, hook, err))
}

// pluginBroken is the answer to a plugin whose answer cannot be used,
// whatever its failurePolicy: it answered, wrongly.
func pluginBroken(plugin, hook string, err error) error {
	return apierrors.NewInternalError(fmt.Errorf("plugin %q (%s) answered wrongly: %w", plugin, hook, err))
}

// fieldErrors turns a plugin's field errors into the causes of a 422.
func fieldErrors(fes []hook.FieldError) field.ErrorList {
	errs := make(field.ErrorList, 0, len(fes))
	for _, fe := range fes {
		t := field.ErrorType(fe.Type)
		if !knownErrorType[t] {
			t = field.ErrorTypeInvalid
		}
		var bad any = field.OmitValueType{}
		if fe.Value != "" {
			if err := json.Unmarshal([]byte(fe.Value), &bad); err != nil {
				bad = fe.Value // not JSON: show it as the plugin wrote it
			}
		}
		errs = append(errs, &field.Error{Type: t, Field: fe.Field, BadValue: bad, Detail: fe.Message})
	}
	return errs
}

var knownErrorType = map[field.ErrorType]bool{
	field.ErrorTypeNotFound: true, field.ErrorTypeRequired: true, field.ErrorTypeDuplicate: true,
	field.ErrorTypeInvalid: true, field.ErrorTypeNotSupported: true, field.ErrorTypeForbidden: true,
	field.ErrorTypeTooLong: true, field.ErrorTypeTooMany: true, field.ErrorTypeInternal: true,
	field.ErrorTypeTypeInvalid: true, field.ErrorTypeTooFew: true, field.ErrorTypeTooShort: true,
}

// check is the WriteCheck of r, nil for none.
func (a admitter) check(r *schemas.Resource) WriteCheck {
	return a.checks.of(r)
}

// WriteCheck vets one write of a resource before its validation plugin
// sees it: req carries the object in the storage version (and the stored
// one on update), and the request's context the user. An error refuses
// the write and is answered as it is (a Status error keeps its code), so
// that a check such as RBAC's escalation prevention answers 403.
type WriteCheck func(ctx context.Context, req hook.AdmissionRequest) error
