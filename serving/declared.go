package serving

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/schemas"
)

// SetDeclared replaces the declarations of the CRD objects
// (schemas.ParseCRD) loaded with the schema files, and reloads. When the
// reload fails, they stay set: a later reload (a fixed file, or other
// CRDs) serves them.
func (r *Reloads) SetDeclared(ctx context.Context, declared []*schemas.Declarations) error {
	s := r.set
	s.mu.Lock()
	defer s.mu.Unlock()
	if sameDeclarations(s.declared, declared) {
		// The feed's first sync with no CRD objects, or a CRD written
		// again unchanged: a reload would find nothing to do, and would
		// take the place of a reload a file change or SIGHUP asked for.
		return nil
	}
	s.declared = slices.Clone(declared)
	return r.reload(ctx, "customresourcedefinitions")
}

// sameDeclarations tells whether a and b declare the same sources from the
// same bytes, in the same order.
func sameDeclarations(a, b []*schemas.Declarations) bool {
	return slices.EqualFunc(a, b, func(x, y *schemas.Declarations) bool {
		return x.Source() == y.Source() && x.ServedDigest() == y.ServedDigest()
	})
}

// CheckDeclared tells whether serving d in place of the declarations of
// the same source (or beside them, for a new source) would load and pass
// the compatibility gate, as SetDeclared would find, the gate reading
// from stored what is stored; it serves nothing. The CRD API answers a
// write with its error. The others are those set now, so a check judges
// d against exactly what is served.
func (s *Set) CheckDeclared(ctx context.Context, stored check.StoredObjects, d *schemas.Declarations) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	candidate := slices.DeleteFunc(slices.Clone(s.declared), func(o *schemas.Declarations) bool { return o.Source() == d.Source() })
	served := s.current.Load()
	next, err := s.buildWith(ctx, served, append(candidate, d))
	if err != nil || next == served {
		return err
	}
	return s.gate(ctx, served, next, stored)
}

// SourcePrefix starts the source name of the declarations of a CRD
// object (schemas.ParseCRD's source): "customresourcedefinitions/<name>".
const SourcePrefix = "customresourcedefinitions/"

// crdDeleted: a resource that a CRD object of the API no longer declares
// (the CRD was deleted, which deletes the objects first) may go. A CRD
// file's resource is judged as any file's.
func crdDeleted(served, next *world, f check.Finding) (bool, string) {
	old := served.reg.Resource(f.Resource)
	if old == nil || old.CRD == "" || len(old.Versions) == 0 || !strings.HasPrefix(old.Versions[0].File, SourcePrefix) {
		return false, ""
	}
	if res := next.reg.Resource(f.Resource); res == nil || res.CRD != old.CRD {
		return true, "CRD " + old.CRD + " was deleted"
	}
	return false, ""
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
