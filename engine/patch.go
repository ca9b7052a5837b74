package engine

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
)

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
	meta, err := s.strategicMeta.lookup(rv, req.Type, req.Subresource)
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

// patch runs p on the stored object until a try is not lost to a race,
// for as long as ctx lasts: kube-apiserver's GuaranteedUpdate tries again
// without a count, so a patch without a resourceVersion never answers 409
// for a race it lost.
func (s *Store) patch(ctx context.Context, p *patcher) (PatchResult, error) {
	r, name := p.req.Version.Resource, p.req.Name
	key := s.keys.Object(r, p.req.Namespace, name)
	for {
		kv, err := s.storage.Get(ctx, key)
		if errors.Is(err, storage.ErrKeyNotFound) && p.req.Type == ApplyPatchType && p.req.Subresource == "" {
			res, err := s.applyCreate(ctx, p)
			if apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
				continue
			}
			return res, err
		}
		if err != nil {
			return PatchResult{}, storageError(r, name, err)
		}
		res, err := s.patchOnce(ctx, p, kv)
		if errors.Is(err, errPatchRetry) {
			if ctx.Err() == nil {
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
	cur, err := s.conv.toVersion(rv, kv.Value)
	if err != nil {
		return Result{}, err
	}
	if cur, err = served(cur, kv.ModRevision); err != nil {
		return Result{}, err
	}
	body, wopts, err := p.apply(&s.fields, rv, cur)
	if err != nil {
		return Result{}, err
	}
	if err := checkPatched(body, s.maxBodyBytes); err != nil {
		return Result{}, err
	}
	req, err := p.decode(rv, body)
	if err != nil {
		return Result{}, err
	}
	if err := s.mutators.patched(rv, req, body); err != nil {
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
