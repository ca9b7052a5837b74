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

// The update pipeline every write of a stored object goes through: an
// update, a patch, an apply to an object that exists, and a write through
// the status, scale or a Strategy's subresource.

// unconditionalTries bounds how often an update without a
// resourceVersion is tried again after another write won the race; each
// try reads afresh, so one of the racing writers wins every round.
const unconditionalTries = 100

// update writes body as w says, trying an unconditional update again
// when another write came first.
func (s *Store) update(ctx context.Context, w *write, body []byte) (Result, error) {
	for try := 1; ; try++ {
		res, unconditional, err := s.updateOnce(ctx, w, body)
		if !unconditional || try == unconditionalTries || !apierrors.IsConflict(err) {
			return res, err
		}
	}
}

// updateOnce is one try of update. unconditional reports an update
// without a resourceVersion of a resource that allows one: it replaces
// whatever it read, and may be tried again when another write came first.
func (s *Store) updateOnce(ctx context.Context, w *write, body []byte) (_ Result, unconditional bool, _ error) {
	rv, r := w.Version, w.resource()
	req, err := decodeWrite(rv, body, w.opts.FieldValidation, w.opts.BodyProblems)
	if err != nil {
		return Result{}, false, err
	}
	if err := s.mutators.body(rv, req); err != nil {
		return Result{}, false, err
	}
	if err := req.setTarget(r, w.Namespace, w.Name); err != nil {
		return Result{}, false, err
	}
	kv, err := s.storage.Get(ctx, s.keys.Object(r, w.Namespace, w.Name))
	if err != nil {
		return Result{}, false, storageError(r, w.Name, err)
	}
	unconditional = r.UnconditionalUpdate && req.meta.ResourceVersion == ""
	if unconditional {
		req.setResourceVersion(kv.ModRevision)
	}
	res, err := s.writeUpdate(ctx, w, req, kv)
	return res, unconditional, err
}

// writeUpdate prepares the update req of the stored kv and writes it.
func (s *Store) writeUpdate(ctx context.Context, w *write, req *request, kv storage.KeyValue) (Result, error) {
	obj, st, err := s.prepareUpdate(ctx, w, req, kv)
	if err != nil {
		return Result{}, err
	}
	rev, err := s.persistUpdate(ctx, w, kv, st)
	if err != nil {
		return Result{}, err
	}
	out, err := served(obj, rev)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: req.warnings}, nil
}

// persistUpdate stores st in place of the stored kv and returns the
// object's new revision. An update that changes nothing is not written,
// as in kube-apiserver, unless the stored value is stale (an old
// encryption key): so that a replace of every object moves them all to
// the first key.
func (s *Store) persistUpdate(ctx context.Context, w *write, kv storage.KeyValue, st []byte) (int64, error) {
	if w.opts.DryRun || (!kv.Stale && bytes.Equal(st, kv.Value)) {
		return kv.ModRevision, nil
	}
	rev, err := s.storage.Update(ctx, s.keys.Object(w.resource(), w.Namespace, w.Name), st, kv.ModRevision)
	if err != nil {
		return 0, storageError(w.resource(), w.Name, err)
	}
	return rev, nil
}

// prepareUpdate checks the request against the stored object kv and
// returns the new object in the request's version and in the storage
// version: defaulted (schema, then plugin), its metadata prepared,
// validated (schema and rules, then write checks and plugin), its write
// recorded in metadata.managedFields as w's manager's
// (managedfields.go). A status update takes only the status from the
// request.
func (s *Store) prepareUpdate(ctx context.Context, w *write, req *request, kv storage.KeyValue) (obj, st []byte, err error) {
	rv, r, name := w.Version, w.resource(), req.meta.Name
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
	s.defaultUpdate(w, req, old)
	if req, err = s.admit.defaultUpdate(ctx, w, req, old); err != nil {
		return nil, nil, err
	}
	errs, err := s.prepareUpdateMeta(w, req, old)
	if err != nil {
		return nil, nil, err
	}
	if rv.Schema != nil {
		errs = append(errs, rv.Schema.ValidateUpdate(req.obj, old.obj)...)
		var ratcheted []string
		errs, ratcheted = rv.Schema.ValidateRules(ctx, req.obj, old.obj, errs)
		req.warnings = append(req.warnings, ratcheted...)
	}
	if len(errs) > 0 {
		return nil, nil, apierrors.NewInvalid(groupKind(r), name, errs)
	}
	return s.encodeUpdate(ctx, w, req, old, kv)
}

// defaultUpdate takes what w may change from req (only the status through
// the status subresource, everything but the status on the main endpoint
// of a resource with one) and defaults it by the schema.
func (s *Store) defaultUpdate(w *write, req *request, old *stored) {
	rv := w.Version
	switch {
	case w.status():
		req.obj = withStatusOf(old.obj, req.obj, s.strategies.statusMetadata(w.resource()))
	case rv.StatusSubresource:
		keepStatus(req.obj, old.obj)
	}
	if rv.Schema != nil {
		rv.Schema.Default(req.obj)
	}
}

// prepareUpdateMeta prepares the new object's metadata from the stored
// one's and lets the resource's Strategy change the object. A status
// write keeps the stored metadata, unless the Strategy lets it change
// (StatusMetadata); kube-apiserver validates it all the same.
func (s *Store) prepareUpdateMeta(w *write, req *request, old *stored) (field.ErrorList, error) {
	var errs field.ErrorList
	if w.status() && !s.strategies.statusMetadata(w.resource()) {
		errs = validateMeta(w.resource(), &old.meta, &old.meta)
	} else {
		errs = req.prepareUpdateMeta(w.Version, old)
	}
	return errs, s.strategies.prepareUpdate(w.resource(), req, old, w.Subresource)
}

// encodeUpdate records the update in the managed fields, encodes the new
// object, converts it to the storage version and runs the write checks
// and the validation plugin on it.
func (s *Store) encodeUpdate(ctx context.Context, w *write, req *request, old *stored, kv storage.KeyValue) (obj, st []byte, err error) {
	s.fields.trackUpdate(w, req, old)
	kept := req.keepBookkeeping(old) // after tracking: never the client's field
	if obj, err = encode(req.obj, len(kv.Value)); err != nil {
		return nil, nil, err
	}
	if st, err = s.conv.toStorage(w.Version, obj); err != nil {
		return nil, nil, err
	}
	if err := s.admit.validateUpdate(ctx, w, &req.meta, st, kv); err != nil {
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
	b, bk, err := s.conv.storedForUpdate(rv, kv.Value)
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
