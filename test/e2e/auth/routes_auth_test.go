package auth

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// rbacWait bounds how long a new binding may take to reach the RBAC
// indexes; a request is retried while it is denied until then.
const rbacWait = 30 * time.Second

// authorizedCodes are the answers that show a request passed
// authorization: it reached the handler, which served it (200, 201) or
// found the made-up object absent (404), present after the walk's own
// create (409), or the walk's minimal body invalid (422), or incomplete
// (400: a SelfSubjectRulesReview with no namespace, as kube answers it).
// The chain itself answers only 401, 403, 429 and 504.
var authorizedCodes = []int{http.StatusOK, http.StatusCreated, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}

// TestRoutesAuthorized walks every route specd serves, as its own
// discovery lists them (each verb of each resource and subresource of
// each group version, and the non-resource URLs), on one specd serving
// TLS with a token file. For each it checks that a request without
// credentials gets 401 (the public probes and /version answer it), that
// a user with no rights gets kube's 403 Forbidden Status, that the user
// of the neighbouring rule (most often the same resource with another
// verb) gets 403 too, and that a user granted exactly the one rule the
// route needs passes authorization.
func TestRoutesAuthorized(t *testing.T) {
	t.Parallel()
	users := newRouteUsers(t)
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true, Args: []string{"--token-auth-file", users.file}})
	w := newRouteWalk(t, s, users)
	cases := w.discover(t)
	t.Logf("%d routes and verbs, %d rules", len(cases), len(w.grants))
	checkCoverage(t, cases)
	t.Run("default roles", w.checkDefaults)
	// Without the bindings kube gives every authenticated user, the user
	// with no rights has none at all.
	w.dropDefaultBindings(t)
	w.createGrants(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { w.check(t, c) })
	}
	t.Logf("answers to the granted users, by HTTP code: %v", w.granted)
}

// check runs the four requests of one route and verb.
func (w *routeWalk) check(t *testing.T, c routeCase) {
	ctx := harness.Context(t, time.Minute)
	if c.public {
		for _, token := range []string{"", w.users.token(nobody)} {
			if a := w.send(t, ctx, c, token); a.Code != http.StatusOK {
				t.Errorf("public path with token %q: HTTP %d, want 200\n%s", token, a.Code, brief(a.Body))
			}
		}
		return
	}
	harness.CheckStatus(t, w.send(t, ctx, c, ""), http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	w.checkForbidden(t, ctx, c, nobody)
	w.checkForbidden(t, ctx, c, c.grant.neighbour.user)
	a := w.sendUntilAllowed(t, ctx, c, c.grant.user)
	w.granted[a.Code]++
	if !slices.Contains(authorizedCodes, a.Code) {
		t.Errorf("%s, granted %s: HTTP %d, want one of %v\n%s", c.grant.user, c.grant.key, a.Code, authorizedCodes, brief(a.Body))
	}
}

// checkForbidden checks user gets kube's 403 Status, with the message
// kube's authorization filter writes.
func (w *routeWalk) checkForbidden(t *testing.T, ctx context.Context, c routeCase, user string) {
	t.Helper()
	status := harness.CheckStatus(t, w.send(t, ctx, c, w.users.token(user)), http.StatusForbidden, metav1.StatusReasonForbidden)
	if want := c.denied.message(user, c.verb); !strings.HasPrefix(status.Message, want) {
		t.Errorf("%s: message %q, want %q (and RBAC's reason, if any)", user, status.Message, want)
	}
}

// sendUntilAllowed sends c as user until authorization lets it through
// or rbacWait passes: the RBAC indexes learn of a binding from a watch.
func (w *routeWalk) sendUntilAllowed(t *testing.T, ctx context.Context, c routeCase, user string) testhttp.Result {
	t.Helper()
	deadline := time.Now().Add(rbacWait)
	for {
		a := w.send(t, ctx, c, w.users.token(user))
		if a.Code != http.StatusForbidden || time.Now().After(deadline) {
			return a
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkDefaults: before the walk drops them, the default bindings give
// every authenticated user discovery and the self reviews, and no more.
func (w *routeWalk) checkDefaults(t *testing.T) {
	ctx := harness.Context(t, time.Minute)
	token := w.users.token(nobody)
	steps := []struct {
		c    routeCase
		want int
	}{
		{routeCase{method: http.MethodGet, path: "/apis"}, http.StatusOK},
		{routeCase{method: http.MethodGet, path: "/openapi/v2"}, http.StatusOK},
		{routeCase{method: http.MethodPost, path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"verb":"get","path":"/metrics"}}}`}, http.StatusCreated},
		{routeCase{method: http.MethodPost, path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
			body: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`}, http.StatusCreated},
		{routeCase{method: http.MethodGet, path: "/metrics"}, http.StatusForbidden},
		{routeCase{method: http.MethodGet, path: "/apis/shop.example.com/v1/namespaces/default/widgets"}, http.StatusForbidden},
	}
	for _, st := range steps {
		if a := w.send(t, ctx, st.c, token); a.Code != st.want {
			t.Errorf("%s %s as %s: HTTP %d, want %d\n%s", st.c.method, st.c.path, nobody, a.Code, st.want, brief(a.Body))
		}
	}
}

// checkCoverage fails the test when discovery left out what the walk
// must cover, so that a discovery that lists less cannot pass unseen.
func checkCoverage(t *testing.T, cases []routeCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.verb] = true
		seen[c.denied.group] = true
		seen[c.denied.subresource] = true
		seen[c.denied.path] = true
	}
	for _, want := range []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection",
		"rbac.authorization.k8s.io", "authorization.k8s.io", "authentication.k8s.io", "shop.example.com",
		"status", "scale", "/api", "/apis", "/openapi/v2", "/openapi/v3", "/metrics", "/version", "/healthz", "/livez", "/readyz",
		"/apis/rbac.authorization.k8s.io/v1", "/openapi/v3/apis/shop.example.com/v1"} {
		if !seen[want] {
			t.Errorf("the walk has no route with %q", want)
		}
	}
}

// brief is the start of a body, for a failure message.
func brief(body string) string {
	const most = 400
	if len(body) > most {
		return body[:most] + "..."
	}
	return body
}
