package engine

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Update replaces an object with body, which must carry the current
// metadata.resourceVersion.
func (s *Store) Update(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions) (Result, error) {
	return s.update(ctx, rv, namespace, name, body, opts, false)
}

// UpdateStatus replaces the status of an object whose resource has a status
// subresource, and nothing else: spec and metadata stay as stored, and the
// generation does not move. body must carry the current
// metadata.resourceVersion.
func (s *Store) UpdateStatus(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions) (Result, error) {
	if !rv.StatusSubresource {
		return Result{}, apierrors.NewNotFound(groupResource(rv.Resource), name)
	}
	return s.update(ctx, rv, namespace, name, body, opts, true)
}

// UpdateSubresource replaces an object with body through one of the
// update-only subresources its resource's Strategy serves
// (Strategy.Subresources, as a Namespace's finalize): a write of the
// object whose Strategy decides what the subresource may change. Any
// other subresource is a 404 NotFound.
func (s *Store) UpdateSubresource(ctx context.Context, rv *schemas.ResourceVersion, namespace, name, subresource string, body []byte, opts WriteOptions) (Result, error) {
	if !s.strategies.serves(rv.Resource, subresource) {
		return Result{}, apierrors.NewNotFound(groupResource(rv.Resource), name)
	}
	opts.subresource = subresource
	return s.update(ctx, rv, namespace, name, body, opts, false)
}

// unconditionalTries bounds how often an update without a
// resourceVersion is tried again after another write won the race; each
// try reads afresh, so one of the racing writers wins every round.
const unconditionalTries = 100

func (s *Store) update(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions, status bool) (Result, error) {
	for try := 1; ; try++ {
		res, unconditional, err := s.updateOnce(ctx, rv, namespace, name, body, opts, status)
		if !unconditional || try == unconditionalTries || !apierrors.IsConflict(err) {
			return res, err
		}
	}
}

// updateOnce is one try of update. unconditional reports an update
// without a resourceVersion of a resource that allows one: it replaces
// whatever it read, and may be tried again when another write came first.
func (s *Store) updateOnce(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions, status bool) (_ Result, unconditional bool, _ error) {
	r := rv.Resource
	req, err := decodeWrite(rv, body, opts.FieldValidation, opts.BodyProblems)
	if err != nil {
		return Result{}, false, err
	}
	if err := s.mutateBody(rv, req); err != nil {
		return Result{}, false, err
	}
	if err := req.setTarget(r, namespace, name); err != nil {
		return Result{}, false, err
	}
	key := s.objectKey(r, namespace, name)
	kv, err := s.storage.Get(ctx, key)
	if err != nil {
		return Result{}, false, storageError(r, name, err)
	}
	unconditional = r.UnconditionalUpdate && req.meta.ResourceVersion == ""
	if unconditional {
		req.setResourceVersion(kv.ModRevision)
	}
	res, err := s.writeUpdate(ctx, rv, req, key, kv, opts, status)
	return res, unconditional, err
}

// writeUpdate prepares the update req of the stored kv and writes it.
func (s *Store) writeUpdate(ctx context.Context, rv *schemas.ResourceVersion, req *request, key string, kv storage.KeyValue, opts WriteOptions, status bool) (Result, error) {
	r, name := rv.Resource, req.meta.Name
	obj, st, err := s.prepareUpdateOpts(ctx, rv, req, kv, status, opts)
	if err != nil {
		return Result{}, err
	}
	rev := kv.ModRevision
	// An update that changes nothing is not written, as in kube-apiserver,
	// unless the stored value is stale (an old encryption key): so that a
	// replace of every object moves them all to the first key.
	if !opts.DryRun && (kv.Stale || !bytes.Equal(st, kv.Value)) {
		if rev, err = s.storage.Update(ctx, key, st, kv.ModRevision); err != nil {
			return Result{}, storageError(r, name, err)
		}
	}
	out, err := served(obj, rev)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: req.warnings}, nil
}

// prepareUpdate checks the request against the stored object kv and
// returns the new object in the request's version and in the storage
// version. A status update takes only the status from the request.
func (s *Store) prepareUpdate(ctx context.Context, rv *schemas.ResourceVersion, req *request, kv storage.KeyValue, status bool) (obj, st []byte, err error) {
	return s.prepareUpdateOpts(ctx, rv, req, kv, status, WriteOptions{})
}

// prepareUpdateOpts is prepareUpdate that also records the write in
// metadata.managedFields as opts.FieldManager's (managedfields.go), and
// runs the plugins bound to the resource (admission.go).
func (s *Store) prepareUpdateOpts(ctx context.Context, rv *schemas.ResourceVersion, req *request, kv storage.KeyValue, status bool, opts WriteOptions) (obj, st []byte, err error) {
	r, name := rv.Resource, req.meta.Name
	if err := checkResourceVersion(r, name, req.meta.ResourceVersion, kv.ModRevision); err != nil {
		return nil, nil, err
	}
	old, err := s.decodeStored(rv, kv)
	if err != nil {
		return nil, nil, err
	}
	if err := checkUIDPrecondition(r, name, string(req.meta.UID), string(old.meta.UID)); err != nil {
		return nil, nil, err
	}
	var errs field.ErrorList
	if status {
		req.obj = withStatusOf(old.obj, req.obj)
		if rv.Schema != nil {
			rv.Schema.Default(req.obj)
		}
	} else {
		if rv.StatusSubresource {
			keepStatus(req.obj, old.obj)
		}
		if rv.Schema != nil {
			rv.Schema.Default(req.obj)
		}
	}
	if req, err = s.admit.defaultUpdate(ctx, rv, req, old, status, opts); err != nil {
		return nil, nil, err
	}
	if status {
		// A status write keeps the stored metadata; kube-apiserver
		// validates it all the same.
		errs = validateMeta(r, &old.meta, &old.meta)
	} else {
		errs = req.prepareUpdateMeta(rv, old)
	}
	if err := s.strategies.prepareUpdate(r, req, old, updateWrite(status, opts).subresource); err != nil {
		return nil, nil, err
	}
	if rv.Schema != nil {
		errs = append(errs, rv.Schema.Validate(req.obj)...)
		var ratcheted []string
		errs, ratcheted = rv.Schema.ValidateRules(ctx, req.obj, old.obj, errs)
		req.warnings = append(req.warnings, ratcheted...)
	}
	if len(errs) > 0 {
		return nil, nil, apierrors.NewInvalid(groupKind(r), name, errs)
	}
	s.trackUpdate(rv, req, old, status, opts)
	kept := req.keepBookkeeping(old) // after tracking: never the client's field
	if obj, err = encode(req.obj, len(kv.Value)); err != nil {
		return nil, nil, err
	}
	if st, err = s.toStorage(rv, obj); err != nil {
		return nil, nil, err
	}
	if err := s.admit.validateUpdate(ctx, rv, req.meta.Namespace, name, st, kv, status, opts); err != nil {
		return nil, nil, err
	}
	if kept {
		obj, err = hideBookkeeping(obj)
	}
	return obj, st, err
}

// checkResourceVersion requires the body's resourceVersion and that it is
// the stored one.
func checkResourceVersion(r *schemas.Resource, name, bodyRV string, storedRev int64) error {
	// kube-apiserver names the resource, not the kind, in this Invalid.
	qualified := schema.GroupKind{Group: r.Group, Kind: r.Plural}
	path := field.NewPath("metadata", "resourceVersion")
	if bodyRV == "" {
		return apierrors.NewInvalid(qualified, name, field.ErrorList{field.Invalid(path, int64(0), "must be specified for an update")})
	}
	rev, err := strconv.ParseInt(bodyRV, 10, 64)
	if err != nil || rev <= 0 {
		return apierrors.NewInvalid(qualified, name, field.ErrorList{field.Invalid(path, bodyRV, "must be a positive integer")})
	}
	if rev != storedRev {
		return apierrors.NewConflict(groupResource(r), name, errModified)
	}
	return nil
}

// decodeStored decodes a stored object, in rv's version, for an update.
func (s *Store) decodeStored(rv *schemas.ResourceVersion, kv storage.KeyValue) (*stored, error) {
	b, bk, err := s.storedForUpdate(rv, kv.Value)
	if err != nil {
		return nil, err
	}
	old := &stored{rev: kv.ModRevision, bookkeeping: bk}
	if old.obj, _, err = decodeObject(b); err != nil {
		return nil, fmt.Errorf("engine: decode stored %s: %w", kv.Key, err)
	}
	md, ok := old.obj["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("engine: stored %s has no metadata", kv.Key)
	}
	if _, err := decodeObjectMeta(md, &old.meta); err != nil {
		return nil, fmt.Errorf("engine: decode stored metadata %s: %w", kv.Key, err)
	}
	old.meta.ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return old, nil
}
