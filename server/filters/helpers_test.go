package filters

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// tokens are the test users: alice may do anything, bob only what
// testAuthorizer's rules give him.
var tokens = map[string]*user.DefaultInfo{
	"alice-token": {Name: "alice", UID: "1", Groups: []string{"admins"}},
	"bob-token":   {Name: "bob", UID: "2"},
}

// testAuthenticator is what cmd/specd builds for --token-auth-file: the
// token file behind the bearer token reader, with system:authenticated
// added to whoever it accepts.
func testAuthenticator() authenticator.Request {
	return group.NewAuthenticatedGroupAdder(bearertoken.New(tokenfile.New(tokens)))
}

// testAuthorizer allows groups admins and system:masters everything, bob
// to get widgets in namespace default and to impersonate carol; it remembers the attributes it was last asked
// about a request (not an impersonation).
type testAuthorizer struct {
	mu   sync.Mutex
	last authorizer.Attributes
}

func (a *testAuthorizer) Authorize(_ context.Context, attr authorizer.Attributes) (authorizer.Decision, string, error) {
	if attr.GetVerb() != "impersonate" {
		a.mu.Lock()
		a.last = attr
		a.mu.Unlock()
	}
	for _, g := range attr.GetUser().GetGroups() {
		if g == "admins" || g == "system:masters" {
			return authorizer.DecisionAllow, "", nil
		}
	}
	if attr.GetUser().GetName() == "bob" && attr.GetVerb() == "get" && attr.GetResource() == "widgets" && attr.GetNamespace() == "default" {
		return authorizer.DecisionAllow, "", nil
	}
	if attr.GetUser().GetName() == "bob" && attr.GetVerb() == "impersonate" && attr.GetResource() == "users" && attr.GetName() == "carol" {
		return authorizer.DecisionAllow, "", nil // a rule of kube before constrained impersonation
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func (a *testAuthorizer) lastAttributes() authorizer.Attributes {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// seen is what the wrapped handler saw of a request.
type seen struct {
	User   string   `json:"user"`
	Groups []string `json:"groups"`
	Verb   string   `json:"verb"`
}

// echo answers 200 with who the request is and its verb.
func echo(w http.ResponseWriter, r *http.Request) {
	u, _ := request.UserFrom(r.Context())
	info, _ := request.RequestInfoFrom(r.Context())
	s := seen{Verb: info.Verb}
	if u != nil {
		s.User, s.Groups = u.GetName(), u.GetGroups()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
}

// serve starts h behind Wrap with cfg (the test token authenticator and
// authorizer when cfg leaves them nil) and returns its URL and authorizer.
func serve(t *testing.T, h http.Handler, cfg Config) (string, *testAuthorizer) {
	t.Helper()
	authz := &testAuthorizer{}
	if cfg.Authenticator == nil && !cfg.Insecure {
		cfg.Authenticator = testAuthenticator()
	}
	if cfg.Authorizer == nil {
		cfg.Authorizer = authz
	}
	srv := httptest.NewServer(Wrap(h, cfg))
	t.Cleanup(srv.Close)
	return srv.URL, authz
}

// do sends one request with the token (none when empty) and headers
// given as name, value pairs, and returns the code and body.
func do(t *testing.T, method, url, token string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func decodeSeen(t *testing.T, body string) seen {
	t.Helper()
	var s seen
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("not what echo writes: %v: %s", err, body)
	}
	return s
}
