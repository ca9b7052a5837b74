package server

import (
	"net/http"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// scaleVerbs are served on the scale subresource.
var scaleVerbs = []string{"get", "patch", "update"}

// scaleKind is the kind a scale subresource answers with.
var scaleKind = metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// scaleResource is the discovery entry of rv's scale subresource.
func scaleResource(rv *schemas.ResourceVersion) metav1.APIResource {
	return metav1.APIResource{Name: rv.Resource.Plural + "/scale", Namespaced: rv.Resource.Namespaced(),
		Group: scaleKind.Group, Version: scaleKind.Version, Kind: scaleKind.Kind, Verbs: scaleVerbs}
}

// scaleDiscovery is the aggregated discovery entry of a scale subresource.
func scaleDiscovery() apidiscoveryv2.APISubresourceDiscovery {
	kind := scaleKind
	return apidiscoveryv2.APISubresourceDiscovery{Subresource: "scale", ResponseKind: &kind, Verbs: scaleVerbs}
}

// hasSubresource reports whether rv serves the named subresource.
func hasSubresource(rv *schemas.ResourceVersion, sub string) bool {
	switch sub {
	case "status":
		return rv.StatusSubresource
	case "scale":
		return rv.Scale != nil
	}
	return false
}

// serveScale serves GET, PUT and PATCH on the scale subresource: an
// autoscaling/v1 Scale. It reports false for other methods (405).
func (s *Server) serveScale(w http.ResponseWriter, r *http.Request, t target) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodPut && r.Method != http.MethodPatch {
		return false
	}
	if r.Method == http.MethodPatch {
		s.patch(w, r, t)
		return true
	}
	if r.Method == http.MethodGet {
		enc, ok := negotiate(r, t, false)
		if !ok {
			notAcceptable(w, r)
			return true
		}
		obj, err := s.cfg.Store.Get(r.Context(), t.Ref)
		if err != nil {
			s.writeError(w, r, err)
			return true
		}
		s.writeObject(w, r, http.StatusOK, enc, obj)
		return true
	}
	body, problems, enc, ok := s.readWrite(w, r, t)
	if !ok {
		return true
	}
	opts, err := writeOptions(r.URL.Query(), "UpdateOptions")
	if err != nil {
		s.writeError(w, r, err)
		return true
	}
	opts.FieldManager = managerOrUserAgent(opts.FieldManager, r.UserAgent())
	opts.BodyProblems = problems
	res, err := s.cfg.Store.Update(r.Context(), engine.WriteRequest{Ref: t.Ref, Body: body, Options: opts})
	if err != nil {
		s.writeError(w, r, err)
		return true
	}
	addWarnings(w, res.Warnings)
	s.writeObject(w, r, http.StatusOK, enc, res.Object)
	return true
}
