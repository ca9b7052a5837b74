package server

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/internal/dnsname"
	"github.com/specd-io/specd/schemas"
)

// target is what a resource path names.
type target struct {
	engine.Ref
}

// resourcePath is a path under /apis/G/V/ or /api/V/, split: the core
// group ("") is at /api/V/.
type resourcePath struct {
	group, version, rest string
}

// splitResourcePath splits a resource path, as the patterns
// /api/{version}/{rest} and /apis/{group}/{version}/{rest} would: ok is
// false unless every part before rest is non-empty and rest is too (a
// path ending at the version is discovery's).
func splitResourcePath(path string) (p resourcePath, ok bool) {
	rest, core := strings.CutPrefix(path, "/api/")
	if !core {
		if rest, ok = strings.CutPrefix(path, "/apis/"); !ok {
			return p, false
		}
		if p.group, rest, ok = strings.Cut(rest, "/"); !ok || p.group == "" {
			return p, false
		}
	}
	p.version, p.rest, ok = strings.Cut(rest, "/")
	return p, ok && p.version != "" && p.rest != ""
}

// serveResource handles every path under /apis/G/V/: the collection,
// object and subresource paths, namespaced (/namespaces/NS/...) or not.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, p resourcePath) {
	reg := s.cfg.Registry()
	t, namespaced, ok := resolve(reg, p.group, p.version, p.rest, s.servesSubresource)
	if !ok {
		if reg = s.installed(r.Context(), reg, p); reg != nil {
			t, namespaced, ok = resolve(reg, p.group, p.version, p.rest, s.servesSubresource)
		}
	}
	if !ok {
		writeStatus(w, r, notFoundStatus())
		return
	}
	if t.Version.Deprecated {
		// Every answer in a deprecated version carries its warning, errors
		// included, as kube-apiserver does for a deprecated CRD version.
		addWarnings(w, []string{t.Version.DeprecationWarning})
	}
	r = withProtobufTarget(r, t)
	if err := t.validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.dispatch(w, r, t, namespaced)
}

// namespaceSubresources are the subresources of a Namespace, whose paths
// would otherwise read as a resource in a namespace.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// resolve finds what the path after /apis/G/V/ names; ok is false when it
// names nothing specd serves (404). namespaced says whether the path had
// the namespaces/NS/ segment. serves, when not nil, tells the
// subresources the store serves beyond status and scale.
func resolve(reg *schemas.Registry, group, version, rest string, serves func(*schemas.Resource, string) bool) (t target, namespaced, ok bool) {
	var parts [6]string
	n := 0
	for rest != "" && n < len(parts) {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			parts[n], rest = rest, ""
		} else {
			parts[n], rest = rest[:i], rest[i+1:]
		}
		if parts[n] == "" {
			return target{}, false, false
		}
		n++
	}
	seg := parts[:n]
	if rest != "" || n == 0 {
		return target{}, false, false
	}
	// namespaces/NAME/status and namespaces/NAME/finalize are a
	// Namespace's subresources, not a resource in namespace NAME, as
	// kube's request info reads them.
	if n >= 3 && seg[0] == "namespaces" && !(n == 3 && namespaceSubresources[seg[2]]) {
		namespaced, t.Namespace, seg = true, seg[1], seg[2:]
	}
	if len(seg) > 3 {
		return target{}, false, false
	}
	rv := reg.Lookup(group, version, seg[0])
	if rv == nil {
		return target{}, false, false
	}
	t.Version = rv
	if len(seg) > 1 {
		t.Name = seg[1]
	}
	if len(seg) > 2 {
		t.Subresource = seg[2]
	}
	switch {
	case namespaced && !rv.Resource.Namespaced():
		return target{}, false, false
	case !namespaced && rv.Resource.Namespaced() && t.Name != "":
		return target{}, false, false // only the all-namespaces list lives here
	case t.Subresource != "" && !hasSubresource(rv, t.Subresource) && (serves == nil || !serves(rv.Resource, t.Subresource)):
		return target{}, false, false
	}
	return t, namespaced, true
}

// validate checks the namespace and name taken from the path.
func (t target) validate() error {
	if t.Namespace != "" && !dnsname.IsLabel(t.Namespace) {
		if errs := validation.IsDNS1123Label(t.Namespace); len(errs) > 0 {
			return badRequest("invalid namespace %q: %s", t.Namespace, strings.Join(errs, "; "))
		}
	}
	if t.Name != "" {
		if errs := path.IsValidPathSegmentName(t.Name); len(errs) > 0 {
			return badRequest("invalid resource name %q: %s", t.Name, strings.Join(errs, "; "))
		}
	}
	return nil
}

// dispatch calls the handler of the method on the target, or answers 405.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, t target, namespaced bool) {
	if t.Subresource == "" && t.Version.Resource.Verbs != nil {
		if verb := resourceVerb(r, t); !t.Version.Resource.Serves(verb) {
			writeStatus(w, r, verbNotServedStatus(verb, r.Method, t.Version.Resource.GroupResource()))
			return
		}
	}
	switch {
	case t.Subresource == "scale":
		if s.serveScale(w, r, t) {
			return
		}
	case t.Subresource != "" && t.Subresource != "status":
		// A store's own subresource (a Namespace's finalize): PUT only.
		if r.Method == http.MethodPut {
			s.update(w, r, t)
			return
		}
	case t.Name != "":
		// An object and its status answer the same methods, but for DELETE.
		switch r.Method {
		case http.MethodGet:
			s.get(w, r, t)
			return
		case http.MethodPut:
			s.update(w, r, t)
			return
		case http.MethodPatch:
			s.patch(w, r, t)
			return
		case http.MethodDelete:
			if t.Subresource == "" {
				s.delete(w, r, t)
				return
			}
		}
	default:
		switch {
		case r.Method == http.MethodGet:
			s.list(w, r, t)
			return
		case r.Method == http.MethodPost && (namespaced || !t.Version.Resource.Namespaced()):
			s.create(w, r, t)
			return
		case r.Method == http.MethodDelete && (namespaced || !t.Version.Resource.Namespaced()):
			s.deleteCollection(w, r, t)
			return
		}
	}
	writeStatus(w, r, methodNotAllowedStatus(r.Method, t.Version.Resource.GroupResource()))
}
