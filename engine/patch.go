package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// PatchType is the media type of a patch.
type PatchType string

// The patch types specd serves for every resource, as kube-apiserver
// does for a custom resource; StrategicMergePatchType is served for the
// kinds Options.StrategicPatchMeta knows.
const (
	JSONPatchType  PatchType = "application/json-patch+json"
	MergePatchType PatchType = "application/merge-patch+json"
	ApplyPatchType PatchType = "application/apply-patch+yaml"
)

const (
	// maxJSONPatchOperations is kube-apiserver's limit.
	maxJSONPatchOperations = 10000
	// maxPatchAttempts bounds the retries of a patch whose write lost a
	// race with another write.
	maxPatchAttempts = 16
)

// PatchOptions are the options of a patch.
type PatchOptions struct {
	WriteOptions
	// Force takes over the fields other managers own (apply only).
	Force bool
}

// PatchResult is what a patch answers; Created is set when an apply
// created the object.
type PatchResult struct {
	Result
	Created bool
}

// Patch applies req.Patch to the current object, in req's version, and
// stores the result through the update pipeline (prune, default,
// validate, generation, status rules) with an update-if-revision. A write
// that loses a race is retried on the new object, unless the patch names
// a resourceVersion, which then answers 409. An apply of an object that
// does not exist creates it. Through the status subresource it patches
// the status alone, through the scale subresource the Scale (scale.go);
// any other subresource is a 404 NotFound.
func (s *Store) Patch(ctx context.Context, req PatchRequest) (PatchResult, error) {
	rv := req.Version
	meta, err := s.strategicMetaFor(rv, req.Type, req.Subresource)
	if err != nil {
		return PatchResult{}, err
	}
	switch {
	case req.Subresource == "scale":
		return s.patchScale(ctx, req)
	case req.Subresource != "" && (req.Subresource != "status" || !rv.StatusSubresource):
		return PatchResult{}, apierrors.NewNotFound(groupResource(rv.Resource), req.Name)
	}
	p, err := newPatcher(rv, req)
	if err != nil {
		return PatchResult{}, err
	}
	p.meta = meta
	return s.patch(ctx, p)
}

// patch runs p on the stored object until a try is not lost to a race.
func (s *Store) patch(ctx context.Context, p *patcher) (PatchResult, error) {
	r, name := p.req.Version.Resource, p.req.Name
	key := s.keys.Object(r, p.req.Namespace, name)
	for attempt := 1; ; attempt++ {
		kv, err := s.storage.Get(ctx, key)
		if errors.Is(err, storage.ErrKeyNotFound) && p.req.Type == ApplyPatchType && p.req.Subresource == "" {
			return s.applyCreate(ctx, p)
		}
		if err != nil {
			return PatchResult{}, storageError(r, name, err)
		}
		res, err := s.patchOnce(ctx, p, kv)
		if errors.Is(err, errPatchRetry) {
			if attempt < maxPatchAttempts {
				continue
			}
			return PatchResult{}, apierrors.NewConflict(groupResource(r), name, errModified)
		}
		if err != nil {
			return PatchResult{}, err
		}
		return PatchResult{Result: res}, nil
	}
}

// errPatchRetry is patchOnce's answer when its write lost a race.
var errPatchRetry = errors.New("engine: patch lost a race")

// patchOnce patches the stored kv. A write that lost a race answers
// errPatchRetry; other errors are Status errors, or failures of the
// storage the server answers with a 500.
func (s *Store) patchOnce(ctx context.Context, p *patcher, kv storage.KeyValue) (Result, error) {
	rv := p.req.Version
	cur, err := s.toVersion(rv, kv.Value)
	if err != nil {
		return Result{}, err
	}
	if cur, err = served(cur, kv.ModRevision); err != nil {
		return Result{}, err
	}
	body, wopts, err := p.apply(s, rv, cur)
	if err != nil {
		return Result{}, err
	}
	if err := s.checkPatched(body); err != nil {
		return Result{}, err
	}
	req, err := p.decode(rv, body)
	if err != nil {
		return Result{}, err
	}
	if err := s.mutatePatched(rv, req, body); err != nil {
		return Result{}, err
	}
	if err := req.setTarget(rv.Resource, p.req.Namespace, p.req.Name); err != nil {
		return Result{}, err
	}
	w := newWrite(ctx, hook.OperationUpdate, p.req.Ref, wopts)
	obj, st, err := s.prepareUpdate(ctx, w, req, kv)
	if err != nil {
		return Result{}, err
	}
	rev, err := s.persistUpdate(ctx, w, kv, st)
	if apierrors.IsConflict(err) {
		return Result{}, errPatchRetry
	}
	if err != nil {
		return Result{}, err
	}
	out, err := served(obj, rev)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: append(p.warnings, req.warnings...)}, nil
}

// patcher is one patch request, checked once before the first attempt.
type patcher struct {
	req      PatchRequest
	ops      jsonpatch.Patch                // a JSON patch, decoded
	config   *request                       // an apply's configuration, decoded
	meta     strategicpatch.LookupPatchMeta // a strategic merge patch's
	warnings []string                       // about the patch itself
}

// newPatcher checks and decodes req's patch, of an object of rv (the
// object's version, or the Scale's).
func newPatcher(rv *schemas.ResourceVersion, req PatchRequest) (*patcher, error) {
	p := &patcher{req: req}
	switch req.Type {
	case JSONPatchType:
		ops, err := jsonpatch.DecodePatch(req.Patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		p.ops = ops
	case MergePatchType, StrategicMergePatchType:
		if err := p.readMergePatch(); err != nil {
			return nil, err
		}
	case ApplyPatchType:
		config, err := decodeApplyConfig(rv, req.Patch, req.Options)
		if err != nil {
			return nil, err
		}
		p.config = config
		p.warnings = config.warnings
	default:
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason: metav1.StatusReasonUnsupportedMediaType, Message: fmt.Sprintf("unsupported patch type %q", req.Type)}}
	}
	return p, nil
}

// readMergePatch reads a merge or strategic merge patch strictly, unless
// fieldValidation is Ignore: keys given twice are warnings (Warn) or one
// Invalid (Strict). kube's message for a patch that is no JSON object
// differs by patch type.
func (p *patcher) readMergePatch() error {
	if p.req.Options.FieldValidation == FieldValidationIgnore {
		return nil // a patch that is no JSON object fails as it is applied
	}
	var v map[string]any
	strict, err := kjson.UnmarshalStrict(p.req.Patch, &v, kjson.DisallowDuplicateFields)
	if err != nil {
		return p.undecodable(err)
	}
	if len(strict) > 0 && p.req.Options.FieldValidation == FieldValidationStrict {
		return patchInvalid(p.strictValue(p.req.Patch), strict)
	}
	for _, e := range strict {
		p.warnings = append(p.warnings, e.Error())
	}
	return nil
}

func (p *patcher) undecodable(err error) error {
	if p.req.Type == StrategicMergePatchType {
		return apierrors.NewBadRequest(err.Error())
	}
	return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
}

// apply returns the patched object cur, and the write options for it.
func (p *patcher) apply(s *Store, rv *schemas.ResourceVersion, cur []byte) ([]byte, WriteOptions, error) {
	switch p.req.Type {
	case JSONPatchType:
		out, err := p.ops.Apply(cur)
		if err != nil {
			return nil, p.req.Options.WriteOptions, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return out, p.req.Options.WriteOptions, nil
	case MergePatchType:
		out, err := jsonpatch.MergePatch(cur, p.req.Patch)
		if err != nil { // jsonpatch.ErrBadJSONPatch: the patch is not JSON
			return nil, p.req.Options.WriteOptions, apierrors.NewBadRequest(err.Error())
		}
		return out, p.req.Options.WriteOptions, nil
	case StrategicMergePatchType:
		out, err := p.strategicMerge(cur)
		return out, p.req.Options.WriteOptions, err
	default:
		return s.applyToCurrent(rv, cur, p)
	}
}

// decode decodes the patched object with fieldValidation: unknown fields
// are warnings (Warn), dropped (Ignore), or one Invalid on "patch" listing
// them all (Strict), as kube-apiserver answers a patch.
func (p *patcher) decode(rv *schemas.ResourceVersion, body []byte) (*request, error) {
	fv := p.req.Options.FieldValidation
	if p.req.Type == ApplyPatchType {
		// The configuration was checked before; what the merge kept of the
		// stored object is not the client's to answer for.
		fv = FieldValidationIgnore
	}
	req, err := decodeWrite(rv, body, FieldValidationWarn, nil)
	if err != nil {
		return nil, err
	}
	switch fv {
	case FieldValidationStrict:
		if strict := decodingWarnings(req.warnings); len(strict) > 0 {
			errs := make([]error, len(strict))
			for i, w := range strict {
				errs[i] = errors.New(w)
			}
			return nil, patchInvalid(p.strictValue(body), errs)
		}
	case FieldValidationIgnore:
		req.warnings = nil
	}
	return req, nil
}

// patchInvalid is kube-apiserver's answer to a patch that fails strict
// field validation.
func patchInvalid(value string, errs []error) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), value, runtime.NewStrictDecodingError(errs).Error()),
	})
}
