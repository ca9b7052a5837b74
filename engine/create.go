package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
)

// generateNameAttempts bounds the retries when a generated name is taken.
const generateNameAttempts = 8

// preparedCreate is a new object ready to be stored.
type preparedCreate struct {
	name         string
	generateName string // set when the name was generated
	object       []byte // in the request's version, without resourceVersion
	stored       []byte // in the storage version
	warnings     []string
}

// Create stores a new object from req.Body (JSON) in req.Namespace ("" for
// cluster scope) and returns it in req.Version. The name is the body's.
func (s *Store) Create(ctx context.Context, req WriteRequest) (Result, error) {
	if req.Subresource != "" {
		return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Version.Resource), "create")
	}
	w := newWrite(ctx, hook.OperationCreate, req.Ref, req.Options)
	p, err := s.prepareCreate(ctx, w, req.Body)
	if err != nil {
		return Result{}, err
	}
	if w.opts.DryRun {
		return Result{Object: p.object, Warnings: p.warnings}, nil
	}
	rev, err := s.persistCreate(ctx, w, p)
	if err != nil {
		return Result{}, err
	}
	out, err := served(p.object, rev)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: p.warnings}, nil
}

// prepareCreate runs the write pipeline up to storage: decode, prune,
// mutate, default (schema, then plugin), metadata, validate, encode, convert,
// validate (plugin).
func (s *Store) prepareCreate(ctx context.Context, w *write, body []byte) (*preparedCreate, error) {
	rv, r := w.Version, w.resource()
	req, err := decodeWrite(rv, body, w.opts.FieldValidation, w.opts.BodyProblems)
	if err != nil {
		return nil, err
	}
	if err := s.mutators.body(rv, req); err != nil {
		return nil, err
	}
	if s.createCheck != nil {
		if err := s.createCheck(ctx, r, req.meta.Name); err != nil {
			return nil, err
		}
	}
	if err := s.checkNamespace(ctx, w, req); err != nil {
		return nil, err
	}
	named := req.meta.Name != ""
	if rv.StatusSubresource {
		delete(req.obj, "status")
	}
	if rv.Schema != nil {
		rv.Schema.Default(req.obj)
	}
	// The defaulting plugin's metadata is prepared and checked as the
	// client's is.
	if req, err = s.admit.defaultCreate(ctx, w, req); err != nil {
		return nil, err
	}
	errs, err := req.prepareCreateMeta(r, w.Namespace, s.now(), newUID(), s.genName)
	if err != nil {
		return nil, err
	}
	if err := s.strategies.prepareCreate(r, req); err != nil {
		return nil, err
	}
	if rv.Schema != nil {
		errs = append(errs, rv.Schema.Validate(req.obj)...)
		errs, _ = rv.Schema.ValidateRules(ctx, req.obj, nil, errs) // no ratcheting, no warning
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(groupKind(r), req.meta.Name, errs)
	}
	s.fields.trackCreate(w, req)
	obj, err := encode(req.obj, len(body))
	if err != nil {
		return nil, err
	}
	st, err := s.conv.toStorage(rv, obj)
	if err != nil {
		return nil, err
	}
	if err := s.admit.validateCreate(ctx, w, &req.meta, st); err != nil {
		return nil, err
	}
	p := &preparedCreate{name: req.meta.Name, object: obj, stored: st, warnings: req.warnings}
	if !named {
		p.generateName = req.meta.GenerateName
	}
	return p, nil
}

// persistCreate stores p, choosing another generated name when the first
// is taken.
func (s *Store) persistCreate(ctx context.Context, w *write, p *preparedCreate) (int64, error) {
	r := w.resource()
	for attempt := 1; ; attempt++ {
		rev, err := s.storage.Create(ctx, s.keys.Object(r, w.Namespace, p.name), p.stored)
		if err == nil {
			return rev, nil
		}
		if !errors.Is(err, storage.ErrKeyExists) || p.generateName == "" {
			return 0, storageError(r, p.name, err)
		}
		if attempt == generateNameAttempts {
			return 0, apierrors.NewGenerateNameConflict(groupResource(r), p.name, 1)
		}
		if err := p.rename(s.genName(p.generateName)); err != nil {
			return 0, err
		}
	}
}

// rename gives a prepared object another name.
func (p *preparedCreate) rename(name string) error {
	var err error
	if p.object, err = sjson.SetBytes(p.object, "metadata.name", name); err != nil {
		return fmt.Errorf("engine: rename: %w", err)
	}
	if p.stored, err = sjson.SetBytes(p.stored, "metadata.name", name); err != nil {
		return fmt.Errorf("engine: rename: %w", err)
	}
	p.name = name
	return nil
}

// checkNamespace runs Options.NamespaceCheck on a create in w's
// namespace, as kube-apiserver's NamespaceLifecycle admission does: first,
// before any defaulting or validation, and never for a cluster-scoped
// resource.
func (s *Store) checkNamespace(ctx context.Context, w *write, req *request) error {
	if s.nsCheck == nil || w.Namespace == "" || !w.resource().Namespaced() {
		return nil
	}
	named := w.Ref
	if named.Name = req.meta.Name; named.Name == "" {
		named.Name = req.meta.GenerateName
	}
	return s.nsCheck.CheckNamespace(ctx, s, named)
}
