package serving

import (
	"context"
	"errors"
	"slices"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/schemas"
)

// SetDeclared replaces the declared documents (the CRD objects' ones,
// schemas.Declared) loaded with the schema files, and reloads. When the
// reload fails, the documents stay set: a later reload (a fixed file, or
// other documents) serves them.
func (r *Reloads) SetDeclared(ctx context.Context, declared []schemas.Declared) error {
	s := r.set
	s.mu.Lock()
	defer s.mu.Unlock()
	s.declared = slices.Clone(declared)
	return r.reload(ctx, "customresourcedefinitions")
}

// CheckDeclared tells whether serving declared instead of the documents
// set now would load and pass the compatibility gate, as SetDeclared
// would find; it serves nothing. The CRD API answers a write with its
// error.
func (r *Reloads) CheckDeclared(ctx context.Context, declared []schemas.Declared) error {
	s := r.set
	s.mu.Lock()
	defer s.mu.Unlock()
	served := s.current.Load()
	next, err := s.buildWith(ctx, served, declared)
	if err != nil || next == served {
		return err
	}
	return s.gate(ctx, served, next, r.stored)
}

// allowedDeclared: a breaking finding of a declared resource version is
// allowed by its document's x-specd.allowBreaking (a CRD's allow
// annotation), and a resource whose owner no longer declares it (its CRD
// was deleted, which deletes its objects first) may go.
func allowedDeclared(served, next *world, f check.Finding) (bool, string) {
	if rv := versionOf(next.reg, f); rv != nil && rv.Owner != "" && rv.AllowBreaking {
		return true, rv.Owner + " allows breaking changes"
	}
	old := versionOf(served.reg, f)
	if old == nil || old.Owner == "" {
		return false, ""
	}
	if res := next.reg.Resource(f.Resource); res == nil || !ownedBy(res, old.Owner) {
		return true, old.Owner + " was deleted"
	}
	return false, ""
}

// versionOf is the resource version a finding is about, nil for none.
func versionOf(reg *schemas.Registry, f check.Finding) *schemas.ResourceVersion {
	res := reg.Resource(f.Resource)
	if res == nil {
		return nil
	}
	if rv := res.Version(f.Version); rv != nil {
		return rv
	}
	if len(res.Versions) > 0 {
		return res.Versions[0]
	}
	return nil
}

func ownedBy(res *schemas.Resource, owner string) bool {
	for _, rv := range res.Versions {
		if rv.Owner == owner {
			return true
		}
	}
	return false
}

// Refused returns the breaking changes of an error of the compatibility
// gate (errors.Is(err, ErrRefused)); false for any other error.
func Refused(err error) ([]schemas.Problem, bool) {
	var re *refusedError
	if !errors.As(err, &re) {
		return nil, false
	}
	return slices.Clone(re.problems), true
}
