package serving

import (
	"context"
	"fmt"
	"strings"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/schemas"
)

// gate refuses a reload that would break clients or stored objects of a
// beta or stable version, under the rules of `specd check --previous`
// (check.CompareStored): a removed field, version or resource, a changed type,
// a new required field, and so on. Alpha versions change freely (those
// findings are warnings). An operator lets a breaking change through with
// --allow-breaking (Config.AllowBreaking), or for one group version with
// x-specd.allowBreaking: true in its file (in the new file, or for a
// removed file in the file as it was last served), or for one CRD's
// resource with its annotation specd.io/allow-breaking: "true" (or for
// every CRD's resource with --crd-gate=false, Config.NoCRDGate). A
// version may go only once no object is stored in it, as read from
// storage (stored, the check of `specd check --etcd-servers`): the
// storage version, and an older one whose objects the storage migration
// has not rewritten yet. Without stored, or when storage does not answer,
// removing the storage version is refused. The
// whole resource may go with its stored objects: they stay in storage
// and are served again when it returns.
func (s *Set) gate(ctx context.Context, served, next *world, stored check.StoredObjects) error {
	var refused []schemas.Problem
	var rules []string
	for _, f := range check.CompareStored(ctx, served.reg, next.reg, stored) {
		if f.Severity != check.Error {
			if f.Severity == check.Warning {
				s.log.Warn("schema change", "file", f.File, "pointer", f.Pointer, "rule", f.Rule, "msg", f.Message)
			}
			continue
		}
		if ok, why := s.allowed(served, next, f); ok {
			s.log.Warn("breaking schema change allowed", "by", why, "file", f.File, "pointer", f.Pointer, "rule", f.Rule, "msg", f.Message)
			continue
		}
		refused = append(refused, schemas.Problem{File: f.File, Pointer: f.Pointer,
			Message: fmt.Sprintf("%s (%s)", f.Message, f.Rule)})
		rules = append(rules, f.Rule)
	}
	if len(refused) == 0 {
		return nil
	}
	return &refusedError{problems: refused, rules: rules}
}

// allowed reports whether a breaking finding may be applied, and why.
func (s *Set) allowed(served, next *world, f check.Finding) (bool, string) {
	if s.cfg.AllowBreaking {
		return true, "--allow-breaking"
	}
	if ok, why := s.ungatedCRD(served, next, f); ok {
		return true, why
	}
	if res := next.reg.Resource(f.Resource); res != nil && res.AllowBreaking {
		return true, "CRD " + res.CRD + " " + schemas.AllowBreakingAnnotation
	}
	if res := served.reg.Resource(f.Resource); res != nil && res.AllowBreaking && next.reg.Resource(f.Resource) == nil {
		return true, "CRD " + res.CRD + " " + schemas.AllowBreakingAnnotation + " (as last served)"
	}
	_, group, _ := strings.Cut(f.Resource, ".")
	if gv := next.reg.GroupVersion(group, f.Version); gv != nil && gv.AllowBreaking {
		return true, gv.File + " x-specd.allowBreaking"
	}
	if gv := served.reg.GroupVersion(group, f.Version); gv != nil && gv.AllowBreaking && next.reg.GroupVersion(group, f.Version) == nil {
		return true, gv.File + " x-specd.allowBreaking (as last served)"
	}
	if ok, why := crdDeleted(served, next, f); ok {
		return true, why
	}
	if f.Rule == "storage-version-removed" && next.reg.Resource(f.Resource) == nil {
		// Nothing reads the stored objects while the resource is gone,
		// and they are served again when it returns: removing the
		// resource is judged by the resource-removed rule.
		return true, "the whole resource goes and its objects stay stored"
	}
	return false, ""
}

// ungatedCRD: with --crd-gate=false, a finding about the resource of a
// CustomResourceDefinition object (as it is served, or as it will be)
// passes, as kube-apiserver takes such changes.
func (s *Set) ungatedCRD(served, next *world, f check.Finding) (bool, string) {
	if !s.cfg.NoCRDGate {
		return false, ""
	}
	for _, w := range []*world{next, served} {
		if res := w.reg.Resource(f.Resource); res != nil && res.CRD != "" {
			return true, "--crd-gate=false (CRD " + res.CRD + ")"
		}
	}
	return false, ""
}

// AllowBreakingHint says how to let a refused change through.
const AllowBreakingHint = "allow them with x-specd.allowBreaking: true in the file, or --allow-breaking"

// refusedError lists the breaking changes a reload was refused for, and
// the compatibility rule each breaks.
type refusedError struct {
	problems []schemas.Problem
	rules    []string
}

func (e *refusedError) Error() string {
	lines := []string{fmt.Sprintf("%v: %d breaking change(s); %s", ErrRefused, len(e.problems), AllowBreakingHint)}
	for _, p := range e.problems {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

func (e *refusedError) Unwrap() error { return ErrRefused }
