package reviews_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/server/reviews"
)

// post sends body to path on the handler of the group, as user u (none
// when nil), without the chain.
func post(t *testing.T, path, body string, u user.Info) *httptest.ResponseRecorder {
	t.Helper()
	groups := reviews.Groups(reviews.Config{}) // nil authorizer: allow all
	h := groups[0].Handler
	if strings.HasPrefix(path, "/apis/authentication") {
		h = groups[1].Handler
	}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if u != nil {
		r = r.WithContext(request.WithUser(r.Context(), u))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestReviewsWithoutAuthorizer(t *testing.T) {
	bob := &user.DefaultInfo{Name: "bob"}
	tests := map[string]struct {
		path, body string
		u          user.Info
		code       int
		want       string
	}{
		"allowed by default": {path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", u: bob, code: 201,
			body: `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{"resourceAttributes":{"verb":"delete","resource":"widgets"}}}`,
			want: `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"resourceAttributes":{"verb":"delete","resource":"widgets"}},"status":{"allowed":true}}`},
		"every rule": {path: "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", u: bob, code: 201,
			body: `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{"namespace":"default"}}`,
			want: `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"namespace":"default"},"status":{"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false}}`},
		"no chain in front": {path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", code: 400,
			body: `{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no user present on request","reason":"BadRequest","code":400}`},
		"malformed": {path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", u: bob, code: 400, body: `{"kind":`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"couldn't get version/kind; json parse error: unexpected end of JSON input","reason":"BadRequest","code":400}`},
		"another kind": {path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", u: bob, code: 400,
			body: `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{"user":"x"}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"SubjectAccessReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: converting (v1.SubjectAccessReview) to (v1.SelfSubjectAccessReview): unknown conversion","reason":"BadRequest","code":400}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := post(t, tc.path, tc.body, tc.u)
			if got := strings.TrimSpace(w.Body.String()); w.Code != tc.code || got != tc.want {
				t.Fatalf("got %d %s\nwant %d %s", w.Code, got, tc.code, tc.want)
			}
		})
	}
}
