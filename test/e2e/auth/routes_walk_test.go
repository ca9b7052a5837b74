package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

const (
	// nobody is the walk's user with no rights.
	nobody = "route-nobody"
	// routeUserPool is how many users the token file names for the rules:
	// it is written before discovery can say how many there are.
	routeUserPool = 300
	// routeNamespace is where the walk sends namespaced requests, and
	// where the Roles that grant them are.
	routeNamespace = "route-walk"
	// madeUpName names the object of every request that names one.
	madeUpName = "made-up"
	// nothingSelector matches no object, so that a deletecollection
	// deletes nothing and a watch sees nothing.
	nothingSelector = "e2e.specd.io/route-walk=none"
	// aggregatedDiscovery is the Accept of client-go's aggregated discovery.
	aggregatedDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

// publicRoutes answer without credentials.
var publicRoutes = []string{"/healthz", "/livez", "/readyz", "/version"}

// routeUsers are the token users of the walk: nobody, and a pool that the
// rules are handed out to, one rule each.
type routeUsers struct {
	file string
	next int
}

func newRouteUsers(t *testing.T) *routeUsers {
	t.Helper()
	u := &routeUsers{}
	var b strings.Builder
	for _, name := range append([]string{nobody}, poolUsers()...) {
		fmt.Fprintf(&b, "%s,%s,uid-%s\n", u.token(name), name, name)
	}
	u.file = harness.WriteFile(t, t.TempDir(), "tokens.csv", b.String())
	return u
}

func poolUsers() []string {
	users := make([]string, routeUserPool)
	for i := range users {
		users[i] = fmt.Sprintf("route-user-%03d", i)
	}
	return users
}

func (u *routeUsers) token(user string) string { return "token-" + user }

// take hands out the next user of the pool.
func (u *routeUsers) take(t *testing.T) string {
	t.Helper()
	if u.next == routeUserPool {
		t.Fatalf("discovery lists more than %d rules: raise routeUserPool", routeUserPool)
	}
	u.next++
	return poolUsers()[u.next-1]
}

// routeCase is one route and verb.
type routeCase struct {
	name                string
	verb                string // the RBAC verb kube derives from the request
	method, path, body  string
	contentType, accept string // application/json when empty
	public              bool
	grant               *routeGrant // the one rule that allows it; nil when public
	denied              denial
}

// denial is what kube's authorization filter names in a 403.
type denial struct {
	group, resource, subresource, namespace, name string
	path                                          string // of a non-resource URL
}

// message is the Status message of kube's authorization filter, before
// the authorizer's reason it may append.
func (d denial) message(user, verb string) string {
	if d.path != "" {
		return fmt.Sprintf("forbidden: User %q cannot %s path %q", user, verb, d.path)
	}
	res := d.resource
	if d.subresource != "" {
		res += "/" + d.subresource
	}
	who := fmt.Sprintf("User %q cannot %s resource %q in API group %q", user, verb, res, d.group)
	if d.namespace != "" {
		who += fmt.Sprintf(" in the namespace %q", d.namespace)
	} else {
		who += " at the cluster scope"
	}
	gr := schema.GroupResource{Group: d.group, Resource: d.resource}.String()
	if d.name == "" {
		return gr + " is forbidden: " + who
	}
	return fmt.Sprintf("%s %q is forbidden: %s", gr, d.name, who)
}

// routeGrant is one rule, given to one user by a Role in namespace (a
// ClusterRole when it is empty) and its binding.
type routeGrant struct {
	key       string
	user      string
	namespace string
	rule      rbacv1.PolicyRule
	// neighbour is the rule before this one by key: most often the same
	// resource with another verb. Its user must be denied this rule's
	// requests.
	neighbour *routeGrant
}

// routeWalk is the walk's view of one specd.
type routeWalk struct {
	s      *harness.Specd
	users  *routeUsers
	client *http.Client // specd's CA, no client certificate
	grants map[string]*routeGrant
	// granted counts the answers to the granted users by HTTP code.
	granted map[int]int
}

func newRouteWalk(t *testing.T, s *harness.Specd, users *routeUsers) *routeWalk {
	t.Helper()
	cfg := harness.RestConfig(s)
	cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = nil, nil, "", ""
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &routeWalk{s: s, users: users, client: client, grants: map[string]*routeGrant{}, granted: map[int]int{}}
}

// discover lists the routes from specd's discovery, as the admin.
func (w *routeWalk) discover(t *testing.T) []routeCase {
	t.Helper()
	var cases []routeCase
	for _, prefix := range []string{"/api", "/apis"} {
		var list apidiscoveryv2.APIGroupDiscoveryList
		w.adminGet(t, prefix, aggregatedDiscovery, &list)
		cases = append(cases, w.resourceCases(t, list)...)
	}
	cases = append(cases, w.nonResourceCases(t)...)
	w.linkNeighbours()
	return cases
}

// resourceCases are a case for each verb of each resource and
// subresource of each group version in an aggregated discovery list.
func (w *routeWalk) resourceCases(t *testing.T, list apidiscoveryv2.APIGroupDiscoveryList) []routeCase {
	var cases []routeCase
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				tg := target{group: g.Name, version: v.Version, resource: r.Resource, kind: r.ResponseKind}
				if r.Scope == apidiscoveryv2.ScopeNamespace {
					tg.namespace = routeNamespace
				}
				for _, verb := range r.Verbs {
					cases = append(cases, w.resourceCase(t, tg, verb))
				}
				if tg.namespace != "" {
					cases = append(cases, w.allNamespacesCases(t, tg, r.Verbs)...)
				}
				for _, sub := range r.Subresources {
					st := tg
					st.subresource, st.kind = sub.Subresource, sub.ResponseKind
					for _, verb := range sub.Verbs {
						cases = append(cases, w.resourceCase(t, st, verb))
					}
				}
			}
		}
	}
	return cases
}

// allNamespacesCases are the list and watch of a namespaced resource in
// every namespace at once, which only a ClusterRole grants.
func (w *routeWalk) allNamespacesCases(t *testing.T, tg target, verbs []string) []routeCase {
	tg.namespace = ""
	var cases []routeCase
	for _, verb := range verbs {
		if verb == "list" || verb == "watch" {
			c := w.resourceCase(t, tg, verb, allNamespaces)
			cases = append(cases, c)
		}
	}
	return cases
}

// nonResourceCases are a GET of each non-resource URL: the fixed ones,
// each group and group version /apis lists, each document /openapi/v3
// indexes, and aggregated discovery.
func (w *routeWalk) nonResourceCases(t *testing.T) []routeCase {
	paths := []string{"/api", "/apis", "/openapi/v2", "/openapi/v3", "/metrics"}
	paths = append(paths, publicRoutes...)
	var groups metav1.APIGroupList
	w.adminGet(t, "/apis", "application/json", &groups)
	for _, g := range groups.Groups {
		paths = append(paths, "/apis/"+g.Name)
		for _, v := range g.Versions {
			paths = append(paths, "/apis/"+v.GroupVersion)
		}
	}
	var index struct {
		Paths map[string]any `json:"paths"`
	}
	w.adminGet(t, "/openapi/v3", "application/json", &index)
	for p := range index.Paths {
		paths = append(paths, "/openapi/v3/"+p)
	}
	slices.Sort(paths)
	var cases []routeCase
	for _, p := range paths {
		cases = append(cases, w.nonResourceCase(t, p, ""))
	}
	for _, p := range []string{"/api", "/apis"} {
		cases = append(cases, w.nonResourceCase(t, p, aggregatedDiscovery))
	}
	return cases
}

func (w *routeWalk) nonResourceCase(t *testing.T, path, accept string) routeCase {
	c := routeCase{name: "get " + path, verb: "get", method: http.MethodGet, path: path, accept: accept,
		public: slices.Contains(publicRoutes, path), denied: denial{path: path}}
	if accept != "" {
		c.name += " (aggregated)"
	}
	if !c.public {
		c.grant = w.grant(t, "url "+path+" get", "", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{path}})
	}
	return c
}

// grant returns the grant of key, made with the next user of the pool
// the first time.
func (w *routeWalk) grant(t *testing.T, key, namespace string, rule rbacv1.PolicyRule) *routeGrant {
	if g, ok := w.grants[key]; ok {
		return g
	}
	g := &routeGrant{key: key, user: w.users.take(t), namespace: namespace, rule: rule}
	w.grants[key] = g
	return g
}

func (w *routeWalk) linkNeighbours() {
	keys := slices.Sorted(maps.Keys(w.grants))
	for i, k := range keys {
		w.grants[k].neighbour = w.grants[keys[(i+len(keys)-1)%len(keys)]]
	}
}

// send sends c with token as its bearer token, or no credentials.
func (w *routeWalk) send(t *testing.T, ctx context.Context, c routeCase, token string) testhttp.Result {
	t.Helper()
	r := testhttp.Request{Method: c.method, URL: w.s.URL + c.path, Accept: c.accept, Token: token, Body: c.body,
		// A watch is authorized at its start; it would stream until
		// its timeout.
		Stream: c.verb == "watch"}
	if c.body != "" {
		r.ContentType = orJSON(c.contentType)
	}
	a, err := testhttp.Send(ctx, w.client, r)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func orJSON(s string) string {
	if s == "" {
		return "application/json"
	}
	return s
}

// adminGet decodes the JSON specd answers the admin at path.
func (w *routeWalk) adminGet(t *testing.T, path, accept string, into any) {
	t.Helper()
	a := w.adminDo(t, http.MethodGet, path, accept, "")
	if a.Code != http.StatusOK {
		t.Fatalf("GET %s as the admin: HTTP %d\n%s", path, a.Code, a.Body)
	}
	if err := json.Unmarshal([]byte(a.Body), into); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// adminDo sends a request as the admin of specd's kubeconfig. It may run
// outside the test's goroutine: a failure to reach specd is code 0 and the
// error as the body.
func (w *routeWalk) adminDo(t *testing.T, method, path, accept, body string) testhttp.Result {
	r, err := testhttp.Send(t.Context(), w.s.Client, testhttp.Request{Method: method, URL: w.s.URL + path, ContentType: "application/json", Accept: accept, Body: body})
	if err != nil {
		return testhttp.Result{Body: err.Error()}
	}
	return r
}

// queryOf is a query of one parameter and more.
func queryOf(kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return "?" + q.Encode()
}
