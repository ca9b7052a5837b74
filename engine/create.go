package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
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

// Create stores a new object from body (JSON) in namespace ("" for cluster
// scope) and returns it in rv's version.
func (s *Store) Create(ctx context.Context, rv *schemas.ResourceVersion, namespace string, body []byte, opts WriteOptions) (Result, error) {
	p, err := s.prepareCreate(ctx, rv, namespace, body, opts)
	if err != nil {
		return Result{}, err
	}
	if opts.DryRun {
		return Result{Object: p.object, Warnings: p.warnings}, nil
	}
	rev, err := s.persistCreate(ctx, rv, namespace, p)
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
func (s *Store) prepareCreate(ctx context.Context, rv *schemas.ResourceVersion, namespace string, body []byte, opts WriteOptions) (*preparedCreate, error) {
	r := rv.Resource
	req, err := decodeWrite(rv, body, opts.FieldValidation, opts.BodyProblems)
	if err != nil {
		return nil, err
	}
	if err := s.mutateBody(rv, req); err != nil {
		return nil, err
	}
	if s.createCheck != nil {
		if err := s.createCheck(ctx, r, req.meta.Name); err != nil {
			return nil, err
		}
	}
	if err := s.checkNamespace(ctx, r, namespace, req); err != nil {
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
	if req, err = s.admit.defaultCreate(ctx, rv, namespace, req, opts); err != nil {
		return nil, err
	}
	errs, err := req.prepareCreateMeta(r, namespace, s.now(), newUID(), s.genName)
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
	s.trackCreate(rv, req, opts)
	obj, err := encode(req.obj, len(body))
	if err != nil {
		return nil, err
	}
	st, err := s.toStorage(rv, obj)
	if err != nil {
		return nil, err
	}
	if err := s.admit.validateCreate(ctx, rv, req.meta.Namespace, req.meta.Name, st, opts); err != nil {
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
func (s *Store) persistCreate(ctx context.Context, rv *schemas.ResourceVersion, namespace string, p *preparedCreate) (int64, error) {
	r := rv.Resource
	for attempt := 1; ; attempt++ {
		rev, err := s.storage.Create(ctx, s.objectKey(r, namespace, p.name), p.stored)
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

// checkNamespace runs Options.NamespaceCheck on a create in namespace, as
// kube-apiserver's NamespaceLifecycle admission does: first, before any
// defaulting or validation, and never for a cluster-scoped resource.
func (s *Store) checkNamespace(ctx context.Context, r *schemas.Resource, namespace string, req *request) error {
	if s.nsCheck == nil || namespace == "" || !r.Namespaced() {
		return nil
	}
	name := req.meta.Name
	if name == "" {
		name = req.meta.GenerateName
	}
	return s.nsCheck(ctx, r, namespace, name)
}
