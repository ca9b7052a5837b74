package server

import (
	"net/http"

	"github.com/gorilla/mux"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/schemas"
)

// ExtraGroup is one version of an API group that a handler of its own
// serves beside the schemas' groups, as the review APIs
// (authorization.k8s.io, authentication.k8s.io) are. It is listed in
// every discovery document and gets every path under /apis/Group/Version/.
// A schema group of the same name is hidden behind it.
type ExtraGroup struct {
	Group, Version string
	// Resources are what /apis/Group/Version lists; aggregated discovery
	// is derived from them.
	Resources []metav1.APIResource
	// Handler serves the paths under /apis/Group/Version/; it sees the
	// request as routed, behind the same logging and panic recovery.
	Handler http.Handler
}

func (e ExtraGroup) groupVersion() metav1.GroupVersionForDiscovery {
	return metav1.GroupVersionForDiscovery{GroupVersion: e.Group + "/" + e.Version, Version: e.Version}
}

func (e ExtraGroup) apiGroupBody() metav1.APIGroup {
	gv := e.groupVersion()
	return metav1.APIGroup{Name: e.Group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
}

func (e ExtraGroup) apiGroup() *metav1.APIGroup {
	ag := e.apiGroupBody()
	ag.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	return &ag
}

func (e ExtraGroup) resourceList() *metav1.APIResourceList {
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: e.Group + "/" + e.Version,
		APIResources: e.Resources,
	}
}

func (e ExtraGroup) aggregated() apidiscoveryv2.APIGroupDiscovery {
	v := apidiscoveryv2.APIVersionDiscovery{Version: e.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
	for _, r := range e.Resources {
		d := apidiscoveryv2.APIResourceDiscovery{
			Resource:         r.Name,
			ResponseKind:     &metav1.GroupVersionKind{Group: e.Group, Version: e.Version, Kind: r.Kind},
			Scope:            apidiscoveryv2.ScopeCluster,
			SingularResource: r.SingularName,
			Verbs:            r.Verbs,
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
		}
		if r.Namespaced {
			d.Scope = apidiscoveryv2.ScopeNamespace
		}
		v.Resources = append(v.Resources, d)
	}
	return apidiscoveryv2.APIGroupDiscovery{
		ObjectMeta: metav1.ObjectMeta{Name: e.Group},
		Versions:   []apidiscoveryv2.APIVersionDiscovery{v},
	}
}

// routeExtras sends the paths under each extra group version to its
// handler, before the schemas' resource route can take them.
func (s *Server) routeExtras(r *mux.Router) {
	for _, e := range s.cfg.Extra {
		r.PathPrefix("/apis/" + e.Group + "/" + e.Version + "/").Handler(e.Handler)
	}
}

// isExtra says whether an extra group's handler serves group/version.
func (s *Server) isExtra(group, version string) bool {
	for _, e := range s.cfg.Extra {
		if e.Group == group && e.Version == version {
			return true
		}
	}
	return false
}

// withoutExtras drops the schema groups an extra group hides.
func withoutExtras(groups []*schemas.Group, extras []ExtraGroup) []*schemas.Group {
	if len(extras) == 0 {
		return groups
	}
	taken := make(map[string]bool, len(extras))
	for _, e := range extras {
		taken[e.Group] = true
	}
	out := groups[:0:0]
	for _, g := range groups {
		if !taken[g.Name] {
			out = append(out, g)
		}
	}
	return out
}
