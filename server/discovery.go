package server

import (
	"net/http"

	"github.com/gorilla/mux"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/discovery"

	"github.com/specd-io/specd/schemas"
)

// contentTypeAggregated is the Content-Type of aggregated discovery, by which
// client-go tells it from the plain documents.
const contentTypeAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// serveLegacyAPI answers /api, the core group's versions: an APIVersions,
// or the aggregated APIGroupDiscoveryList of the core group alone.
func (s *Server) serveLegacyAPI(w http.ResponseWriter, r *http.Request) {
	c := s.snapshot(r.Context())
	w.Header().Set("Vary", "Accept") // the answer depends on it; tell caches
	if wantsAggregated(r) {
		serveDocument(w, r, contentTypeAggregated, c.legacyAggregated)
		return
	}
	serveDocument(w, r, contentTypeJSON, c.legacy)
}

// serveAPIs answers /apis: an APIGroupList, or the aggregated
// APIGroupDiscoveryList when the client asks for it first.
func (s *Server) serveAPIs(w http.ResponseWriter, r *http.Request) {
	c := s.snapshot(r.Context())
	w.Header().Set("Vary", "Accept")
	if wantsAggregated(r) {
		serveDocument(w, r, contentTypeAggregated, c.apisAggregated)
		return
	}
	serveDocument(w, r, contentTypeJSON, c.apis)
}

func (s *Server) serveGroup(w http.ResponseWriter, r *http.Request) {
	serveDocument(w, r, contentTypeJSON, s.snapshot(r.Context()).groups[mux.Vars(r)["group"]])
}

// serveGroupVersion answers /apis/G/V and, for the core group, /api/V.
func (s *Server) serveGroupVersion(w http.ResponseWriter, r *http.Request) {
	v := mux.Vars(r)
	serveDocument(w, r, contentTypeJSON, s.snapshot(r.Context()).groupVersions[schemas.APIVersion(v["group"], v["version"])])
}

// serveDocument answers with doc, or 404 when there is none, or 304 Not
// Modified when the client has it already (If-None-Match its ETag), as
// kube-apiserver's discovery does.
func serveDocument(w http.ResponseWriter, r *http.Request, contentType string, doc *document) {
	if doc == nil {
		writeStatus(w, r, notFoundStatus())
		return
	}
	w.Header().Set("ETag", doc.etag)
	if r.Header.Get("If-None-Match") == doc.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, contentType, doc.body)
}

// legacyVersions is /api: the served versions of the core group, if
// the registry has it (nil).
func legacyVersions(core *schemas.Group) *metav1.APIVersions {
	v := &metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		Versions:                   []string{},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{},
	}
	if core != nil {
		for _, gv := range core.ServedVersions() {
			v.Versions = append(v.Versions, gv.Version)
		}
	}
	return v
}

func groupList(groups []*schemas.Group, extras []ExtraGroup) *metav1.APIGroupList {
	l := &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   make([]metav1.APIGroup, 0, len(extras)+len(groups)),
	}
	for _, e := range extras {
		l.Groups = append(l.Groups, e.apiGroupBody())
	}
	for _, g := range groups {
		l.Groups = append(l.Groups, *apiGroupBody(g))
	}
	return l
}

// servedGroups are the groups with at least one served version: a group
// whose versions are all hidden or disabled is not in discovery. The core
// group ("") is returned apart, nil when not served: /api lists it, not
// /apis.
func servedGroups(reg *schemas.Registry) (core *schemas.Group, named []*schemas.Group) {
	named = make([]*schemas.Group, 0, len(reg.Groups()))
	for _, g := range reg.Groups() {
		switch {
		case g.PreferredVersion() == nil:
		case g.Name == "":
			core = g
		default:
			named = append(named, g)
		}
	}
	return core, named
}

func apiGroup(g *schemas.Group) *metav1.APIGroup {
	ag := apiGroupBody(g)
	ag.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	return ag
}

func apiGroupBody(g *schemas.Group) *metav1.APIGroup {
	served := g.ServedVersions()
	ag := &metav1.APIGroup{Name: g.Name, Versions: make([]metav1.GroupVersionForDiscovery, 0, len(served))}
	for _, gv := range served {
		ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{
			GroupVersion: schemas.APIVersion(gv.Group, gv.Version), Version: gv.Version,
		})
	}
	if p := g.PreferredVersion(); p != nil {
		ag.PreferredVersion = metav1.GroupVersionForDiscovery{GroupVersion: schemas.APIVersion(p.Group, p.Version), Version: p.Version}
	}
	return ag
}

// resourceList is /apis/G/V: each served resource, then its
// subresources: the store's own (subs), status, scale.
func resourceList(gv *schemas.GroupVersion, subs subresourcesOf) *metav1.APIResourceList {
	l := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: schemas.APIVersion(gv.Group, gv.Version),
		APIResources: make([]metav1.APIResource, 0, len(gv.Resources)),
	}
	for _, rv := range gv.ServedResources() {
		res := rv.Resource
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name:         res.Plural,
			SingularName: res.Singular,
			Namespaced:   res.Namespaced(),
			Kind:         res.Kind,
			Verbs:        discoveryVerbs(res),
			ShortNames:   res.ShortNames,
			Categories:   res.Categories,
			// kube-apiserver's hash of the storage version: clients
			// such as the storage version migrator see it change.
			StorageVersionHash: discovery.StorageVersionHash(res.Group, res.StorageVersion, res.Kind),
		})
		for _, sub := range subs(res) {
			l.APIResources = append(l.APIResources, metav1.APIResource{
				Name: res.Plural + "/" + sub, Namespaced: res.Namespaced(), Kind: res.Kind, Verbs: updateOnlyVerbs,
			})
		}
		if rv.StatusSubresource {
			l.APIResources = append(l.APIResources, metav1.APIResource{
				Name:       res.Plural + "/status",
				Namespaced: res.Namespaced(),
				Kind:       res.Kind,
				Verbs:      statusVerbs,
			})
		}
		if rv.Scale != nil {
			l.APIResources = append(l.APIResources, scaleResource(rv))
		}
	}
	return l
}

func aggregatedList(groups []*schemas.Group, extras []ExtraGroup, subs subresourcesOf) *apidiscoveryv2.APIGroupDiscoveryList {
	l := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    make([]apidiscoveryv2.APIGroupDiscovery, 0, len(extras)+len(groups)),
	}
	for _, e := range extras {
		l.Items = append(l.Items, e.aggregated())
	}
	for _, g := range groups {
		item := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, gv := range g.ServedVersions() {
			item.Versions = append(item.Versions, aggregatedVersion(gv, subs))
		}
		l.Items = append(l.Items, item)
	}
	return l
}

func aggregatedVersion(gv *schemas.GroupVersion, subs subresourcesOf) apidiscoveryv2.APIVersionDiscovery {
	v := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
	for _, rv := range gv.ServedResources() {
		res := rv.Resource
		kind := &metav1.GroupVersionKind{Group: res.Group, Version: rv.Version, Kind: res.Kind}
		d := apidiscoveryv2.APIResourceDiscovery{
			Resource:         res.Plural,
			ResponseKind:     kind,
			Scope:            apidiscoveryv2.ScopeCluster,
			SingularResource: res.Singular,
			Verbs:            discoveryVerbs(res),
			ShortNames:       res.ShortNames,
			Categories:       res.Categories,
		}
		if res.Namespaced() {
			d.Scope = apidiscoveryv2.ScopeNamespace
		}
		for _, sub := range subs(res) {
			d.Subresources = append(d.Subresources, apidiscoveryv2.APISubresourceDiscovery{
				Subresource: sub, ResponseKind: kind, Verbs: updateOnlyVerbs,
			})
		}
		if rv.StatusSubresource {
			d.Subresources = append(d.Subresources, apidiscoveryv2.APISubresourceDiscovery{
				Subresource: "status", ResponseKind: kind, Verbs: statusVerbs,
			})
		}
		if rv.Scale != nil {
			d.Subresources = append(d.Subresources, scaleDiscovery())
		}
		v.Resources = append(v.Resources, d)
	}
	return v
}
