package server

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/server/auditlog"
)

// The patch formats kube-apiserver accepts, in the order its 415 names
// them: for a built-in kind, with the strategic merge patch its Go type
// defines; for a custom resource, without.
var (
	builtinPatchTypes = []engine.PatchType{engine.JSONPatchType, engine.MergePatchType, engine.StrategicMergePatchType, engine.ApplyPatchType}
	customPatchTypes  = []engine.PatchType{engine.JSONPatchType, engine.MergePatchType, engine.ApplyPatchType}
)

// patch serves PATCH on an object or its status, in kube-apiserver's order:
// the patch type (415), the response encoding (406), the body (413), the
// options (422). It answers 200, or 201 when an apply created the object.
func (s *Server) patch(w http.ResponseWriter, r *http.Request, t target) {
	accepted := patchTypes(t)
	pt, ok := patchType(r.Header.Get("Content-Type"), accepted)
	if !ok {
		s.writeError(w, r, unsupportedMediaType(joinPatchTypes(accepted)))
		return
	}
	enc, ok := negotiate(r, t, false)
	if !ok {
		notAcceptable(w, r)
		return
	}
	body, err := ReadLimited(r, s.cfg.MaxBodyBytes)
	if err == nil && len(bytes.TrimSpace(body)) == 0 {
		err = badRequest("the request body is empty")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	auditlog.LogRequestPatch(r.Context(), body, pt == engine.ApplyPatchType)
	opts, err := patchOptions(r.URL.Query(), pt)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts.FieldManager = managerOrUserAgent(opts.FieldManager, r.UserAgent())
	res, err := s.cfg.Store.Patch(r.Context(), engine.PatchRequest{Ref: t.Ref, Type: pt, Patch: body, Options: opts})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	addWarnings(w, res.Warnings)
	code := http.StatusOK
	if res.Created {
		code = http.StatusCreated
	}
	s.writeObject(w, r, code, enc, res.Object)
}

// patchTypes are the patch types t takes: a strategic merge patch needs
// the patch metadata of a Go type (gotypes), which the built-in kinds
// have in the request's version, and which their scale would not.
func patchTypes(t target) []engine.PatchType {
	if t.hasProtobuf() { // the kinds with Go types, as strategic merge needs
		return builtinPatchTypes
	}
	return customPatchTypes
}

// patchType reads the patch type from a Content-Type, one of accepted.
func patchType(contentType string, accepted []engine.PatchType) (engine.PatchType, bool) {
	if i := strings.IndexByte(contentType, ';'); i > 0 {
		contentType = contentType[:i]
	}
	pt := engine.PatchType(strings.TrimSpace(contentType))
	return pt, slices.Contains(accepted, pt)
}

func joinPatchTypes(pts []engine.PatchType) string {
	names := make([]string, len(pts))
	for i, pt := range pts {
		names[i] = string(pt)
	}
	return strings.Join(names, ", ")
}

// patchOptions reads and validates dryRun, fieldManager, fieldValidation
// and force with apimachinery's rules: an apply needs a fieldManager, force
// is for applies only.
func patchOptions(q url.Values, pt engine.PatchType) (engine.PatchOptions, error) {
	po := metav1.PatchOptions{DryRun: q["dryRun"], FieldManager: q.Get("fieldManager"), FieldValidation: q.Get("fieldValidation")}
	if v, ok := q["force"]; ok && len(v) > 0 {
		f, err := strconv.ParseBool(v[0])
		if err != nil {
			return engine.PatchOptions{}, badRequest("invalid force %q: must be true or false", v[0])
		}
		po.Force = &f
	}
	if errs := metav1validation.ValidatePatchOptions(&po, types.PatchType(pt)); len(errs) > 0 {
		return engine.PatchOptions{}, optionsInvalid("PatchOptions", errs)
	}
	opts := engine.PatchOptions{WriteOptions: engine.WriteOptions{
		FieldValidation: engine.FieldValidation(po.FieldValidation), DryRun: len(po.DryRun) > 0, FieldManager: po.FieldManager,
	}}
	if po.Force != nil {
		opts.Force = *po.Force
	}
	return opts, nil
}

// fieldManagerMaxLength is apimachinery's limit on a manager name.
const fieldManagerMaxLength = 128

// managerOrUserAgent is the manager a write is recorded under, as
// kube-apiserver names it: the fieldManager parameter, else the user
// agent up to its first "/", printable characters only, at most 128 bytes.
func managerOrUserAgent(manager, userAgent string) string {
	if manager != "" {
		return manager
	}
	m, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range m {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > fieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
