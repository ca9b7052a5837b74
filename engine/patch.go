package engine

import (
	"bytes"
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
	// Subresource is "" or "status": a status patch changes only status.
	Subresource string
	// Force takes over the fields other managers own (apply only).
	Force bool
}

// PatchResult is what a patch answers; Created is set when an apply
// created the object.
type PatchResult struct {
	Result
	Created bool
}

// Patch applies patch to the current object, in rv's version, and stores
// the result through the update pipeline (prune, default, validate,
// generation, status rules) with an update-if-revision. A write that
// loses a race is retried on the new object, unless the patch names a
// resourceVersion, which then answers 409. An apply of an object that does
// not exist creates it.
func (s *Store) Patch(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, pt PatchType, patch []byte, opts PatchOptions) (PatchResult, error) {
	r := rv.Resource
	meta, err := s.strategicMetaFor(rv, pt, opts.Subresource)
	if err != nil {
		return PatchResult{}, err
	}
	if opts.Subresource == "scale" {
		return s.patchScale(ctx, rv, namespace, name, pt, patch, opts)
	}
	status := opts.Subresource == "status"
	if (status && !rv.StatusSubresource) || (opts.Subresource != "" && !status) {
		return PatchResult{}, apierrors.NewNotFound(groupResource(r), name)
	}
	p, err := newPatcher(rv, pt, patch, opts)
	if err != nil {
		return PatchResult{}, err
	}
	p.meta = meta
	key := s.objectKey(r, namespace, name)
	for attempt := 1; ; attempt++ {
		kv, err := s.storage.Get(ctx, key)
		if errors.Is(err, storage.ErrKeyNotFound) && pt == ApplyPatchType && !status {
			return s.applyCreate(ctx, rv, namespace, name, p)
		}
		if err != nil {
			return PatchResult{}, storageError(r, name, err)
		}
		res, err := s.patchOnce(ctx, rv, namespace, name, p, kv)
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
func (s *Store) patchOnce(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, p *patcher, kv storage.KeyValue) (Result, error) {
	r := rv.Resource
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
	if err := req.setTarget(r, namespace, name); err != nil {
		return Result{}, err
	}
	obj, st, err := s.prepareUpdateOpts(ctx, rv, req, kv, p.opts.Subresource == "status", wopts)
	if err != nil {
		return Result{}, err
	}
	rev := kv.ModRevision
	// A patch that changes nothing is not written, as in kube-apiserver,
	// unless the stored value is stale (see update).
	if !p.opts.DryRun && (kv.Stale || !bytes.Equal(st, kv.Value)) {
		if rev, err = s.storage.Update(ctx, s.objectKey(r, namespace, name), st, kv.ModRevision); err != nil {
			if errors.Is(err, storage.ErrConflict) {
				return Result{}, errPatchRetry
			}
			return Result{}, storageError(r, name, err)
		}
	}
	out, err := served(obj, rev)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: append(p.warnings, req.warnings...)}, nil
}

// patcher is one patch request, checked once before the first attempt.
type patcher struct {
	pt       PatchType
	patch    []byte
	ops      jsonpatch.Patch                // a JSON patch, decoded
	config   *request                       // an apply's configuration, decoded
	meta     strategicpatch.LookupPatchMeta // a strategic merge patch's
	opts     PatchOptions
	warnings []string // about the patch itself
}

func newPatcher(rv *schemas.ResourceVersion, pt PatchType, patch []byte, opts PatchOptions) (*patcher, error) {
	p := &patcher{pt: pt, patch: patch, opts: opts}
	switch pt {
	case JSONPatchType:
		ops, err := jsonpatch.DecodePatch(patch)
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
		config, err := decodeApplyConfig(rv, patch, opts)
		if err != nil {
			return nil, err
		}
		p.config = config
		p.warnings = config.warnings
	default:
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason: metav1.StatusReasonUnsupportedMediaType, Message: fmt.Sprintf("unsupported patch type %q", pt)}}
	}
	return p, nil
}

// readMergePatch reads a merge or strategic merge patch strictly, unless
// fieldValidation is Ignore: keys given twice are warnings (Warn) or one
// Invalid (Strict). kube's message for a patch that is no JSON object
// differs by patch type.
func (p *patcher) readMergePatch() error {
	if p.opts.FieldValidation == FieldValidationIgnore {
		return nil // a patch that is no JSON object fails as it is applied
	}
	var v map[string]any
	strict, err := kjson.UnmarshalStrict(p.patch, &v, kjson.DisallowDuplicateFields)
	if err != nil {
		return p.undecodable(err)
	}
	if len(strict) > 0 && p.opts.FieldValidation == FieldValidationStrict {
		return patchInvalid(p.strictValue(p.patch), strict)
	}
	for _, e := range strict {
		p.warnings = append(p.warnings, e.Error())
	}
	return nil
}

func (p *patcher) undecodable(err error) error {
	if p.pt == StrategicMergePatchType {
		return apierrors.NewBadRequest(err.Error())
	}
	return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
}

// apply returns the patched object cur, and the write options for it.
func (p *patcher) apply(s *Store, rv *schemas.ResourceVersion, cur []byte) ([]byte, WriteOptions, error) {
	switch p.pt {
	case JSONPatchType:
		out, err := p.ops.Apply(cur)
		if err != nil {
			return nil, p.opts.WriteOptions, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return out, p.opts.WriteOptions, nil
	case MergePatchType:
		out, err := jsonpatch.MergePatch(cur, p.patch)
		if err != nil { // jsonpatch.ErrBadJSONPatch: the patch is not JSON
			return nil, p.opts.WriteOptions, apierrors.NewBadRequest(err.Error())
		}
		return out, p.opts.WriteOptions, nil
	case StrategicMergePatchType:
		out, err := p.strategicMerge(cur)
		return out, p.opts.WriteOptions, err
	default:
		return s.applyToCurrent(rv, cur, p)
	}
}

// decode decodes the patched object with fieldValidation: unknown fields
// are warnings (Warn), dropped (Ignore), or one Invalid on "patch" listing
// them all (Strict), as kube-apiserver answers a patch.
func (p *patcher) decode(rv *schemas.ResourceVersion, body []byte) (*request, error) {
	fv := p.opts.FieldValidation
	if p.pt == ApplyPatchType {
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
