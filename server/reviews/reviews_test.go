package reviews_test

import (
	"context"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/filters"
	"github.com/specd-io/specd/server/reviews"
)

// rbacLike allows group admins everything and bob to read widgets in
// namespace default, and lists those rules, as RBAC would.
type rbacLike struct{}

func (rbacLike) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if slices.Contains(a.GetUser().GetGroups(), "admins") {
		return authorizer.DecisionAllow, "admins may", nil
	}
	if !a.IsResourceRequest() || a.GetResource() == "selfsubjectaccessreviews" || a.GetResource() == "selfsubjectrulesreviews" ||
		a.GetResource() == "selfsubjectreviews" {
		return authorizer.DecisionAllow, "", nil // discovery and the self reviews, as kube's basic-user role
	}
	if a.GetUser().GetName() == "bob" && a.GetNamespace() == "default" && a.GetResource() == "widgets" &&
		slices.Contains([]string{"get", "list", "watch"}, a.GetVerb()) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func (rbacLike) RulesFor(_ context.Context, u user.Info, ns string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	res := []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{
		Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"},
	}}
	if u.GetName() == "bob" && ns == "default" {
		res = append(res, &authorizer.DefaultResourceRuleInfo{
			Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"shop.example.com"}, Resources: []string{"widgets"},
		})
	}
	nonRes := []authorizer.NonResourceRuleInfo{&authorizer.DefaultNonResourceRuleInfo{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/apis", "/apis/*"}}}
	return res, nonRes, false, nil
}

// startSpecd serves the example schemas from a real engine on an embedded
// etcd, behind the request chain, with the reviews mounted, over TLS:
// kubectl sends credentials only over TLS.
func startSpecd(t *testing.T) *httptest.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, err := schemas.Load("../../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet})
	h := server.New(server.Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    store,
		Logger:   quiet,
		Extra:    reviews.Groups(reviews.Config{Authorizer: rbacLike{}}),
	})
	tokens := map[string]*user.DefaultInfo{
		"alice-token": {Name: "alice", UID: "1", Groups: []string{"admins"}, Extra: map[string][]string{"team": {"a"}}},
		"bob-token":   {Name: "bob", UID: "2"},
	}
	srv := httptest.NewTLSServer(filters.Wrap(h, filters.Config{
		Authenticator: group.NewAuthenticatedGroupAdder(bearertoken.New(tokenfile.New(tokens))),
		Authorizer:    rbacLike{},
	}))
	t.Cleanup(srv.Close)
	return srv
}

// caPEM is the certificate a client of srv trusts.
func caPEM(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

func clientset(t *testing.T, srv *httptest.Server, token string, as ...string) *kubernetes.Clientset {
	t.Helper()
	cfg := &rest.Config{Host: srv.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: caPEM(srv)}}
	if len(as) > 0 {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: as[0], Groups: as[1:]}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func canI(t *testing.T, cs *kubernetes.Clientset, attr authorizationv1.ResourceAttributes) bool {
	t.Helper()
	sar, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
		&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attr}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

func TestReviews(t *testing.T) {
	srv := startSpecd(t)
	bob := clientset(t, srv, "bob-token")
	alice := clientset(t, srv, "alice-token")
	listWidgets := func(ns string) authorizationv1.ResourceAttributes {
		return authorizationv1.ResourceAttributes{Verb: "list", Group: "shop.example.com", Resource: "widgets", Namespace: ns}
	}

	t.Run("can-i", func(t *testing.T) {
		if !canI(t, bob, listWidgets("default")) {
			t.Error("bob cannot list widgets in default")
		}
		if canI(t, bob, listWidgets("other")) {
			t.Error("bob can list widgets in other")
		}
	})
	t.Run("can-i as another user", func(t *testing.T) {
		if !canI(t, clientset(t, srv, "alice-token", "bob"), listWidgets("default")) ||
			canI(t, clientset(t, srv, "alice-token", "bob"), listWidgets("other")) {
			t.Error("alice as bob is not answered as bob")
		}
	})
	t.Run("can-i in protobuf", func(t *testing.T) {
		cfg := &rest.Config{Host: srv.URL, BearerToken: "bob-token", TLSClientConfig: rest.TLSClientConfig{CAData: caPEM(srv)},
			ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}}
		if !canI(t, kubernetes.NewForConfigOrDie(cfg), listWidgets("default")) {
			t.Error("bob cannot list widgets in default")
		}
	})
	t.Run("subject access review", func(t *testing.T) {
		sar, err := alice.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: "bob", ResourceAttributes: ptr(listWidgets("default"))},
		}, metav1.CreateOptions{})
		if err != nil || !sar.Status.Allowed {
			t.Fatalf("%+v, %v", sar, err)
		}
	})
	t.Run("local subject access review", func(t *testing.T) {
		for ns, want := range map[string]bool{"default": true, "other": false} {
			lsar, err := alice.AuthorizationV1().LocalSubjectAccessReviews(ns).Create(context.Background(), &authorizationv1.LocalSubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: "bob", ResourceAttributes: ptr(listWidgets(ns))},
			}, metav1.CreateOptions{})
			if err != nil || lsar.Status.Allowed != want || lsar.Namespace != ns {
				t.Errorf("in %s: %+v, %v; want allowed %v", ns, lsar, err, want)
			}
		}
	})
	t.Run("selector that does not parse", func(t *testing.T) {
		attr := listWidgets("default")
		attr.LabelSelector = &authorizationv1.LabelSelectorAttributes{RawSelector: "team in ("}
		sar, err := bob.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attr}}, metav1.CreateOptions{})
		if err != nil || !sar.Status.Allowed || sar.Status.EvaluationError != "spec.resourceAttributes.labelSelector ignored due to parse error" {
			t.Fatalf("%+v, %v", sar, err)
		}
	})
	t.Run("list rules", func(t *testing.T) {
		rr, err := bob.AuthorizationV1().SelfSubjectRulesReviews().Create(context.Background(), &authorizationv1.SelfSubjectRulesReview{
			Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rr.Status.ResourceRules) != 2 || rr.Status.ResourceRules[1].Resources[0] != "widgets" || rr.Status.Incomplete {
			t.Fatalf("rules %+v", rr.Status)
		}
	})
	t.Run("whoami", func(t *testing.T) {
		r, err := alice.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		u := r.Status.UserInfo
		if u.Username != "alice" || u.UID != "1" || !slices.Equal(u.Groups, []string{"admins", "system:authenticated"}) || u.Extra["team"][0] != "a" {
			t.Fatalf("whoami %+v", u)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestReviewErrors(t *testing.T) {
	srv := startSpecd(t)
	const g = "/apis/authorization.k8s.io/v1/"
	tests := map[string]struct {
		method, path, token, body string
		code                      int
		want                      string
	}{
		"no attributes": {method: http.MethodPost, path: g + "selfsubjectaccessreviews", token: "bob-token",
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{}}`, code: 422,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified","reason":"Invalid","details":{"group":"authorization.k8s.io","kind":"SelfSubjectAccessReview","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified","field":"spec.resourceAttributes"}]},"code":422}`},
		"no subject": {method: http.MethodPost, path: g + "subjectaccessreviews", token: "alice-token",
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/apis","verb":"get"}}}`, code: 422,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"SubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified","reason":"Invalid","details":{"group":"authorization.k8s.io","kind":"SubjectAccessReview","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"\": at least one of user or group must be specified","field":"spec.user"}]},"code":422}`},
		"get": {method: http.MethodGet, path: g + "selfsubjectaccessreviews", token: "alice-token", code: 405,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","code":405}`},
		"unknown": {method: http.MethodPost, path: g + "localsubjectaccessreviewz", token: "alice-token", code: 404,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}`},
		"subject access review needs the right": {method: http.MethodPost, path: g + "subjectaccessreviews", token: "bob-token", code: 403,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"x"}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"subjectaccessreviews.authorization.k8s.io is forbidden: User \"bob\" cannot create resource \"subjectaccessreviews\" in API group \"authorization.k8s.io\" at the cluster scope","reason":"Forbidden","details":{"group":"authorization.k8s.io","kind":"subjectaccessreviews"},"code":403}`},
		"local review of another namespace": {method: http.MethodPost, path: g + "namespaces/default/localsubjectaccessreviews", token: "alice-token", code: 422,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"namespace":"other","verb":"get","resource":"widgets"}}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"LocalSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace","reason":"Invalid","details":{"group":"authorization.k8s.io","kind":"LocalSubjectAccessReview","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"other\": must match metadata.namespace","field":"spec.resourceAttributes.namespace"}]},"code":422}`},
		"local review of a path": {method: http.MethodPost, path: g + "namespaces/default/localsubjectaccessreviews", token: "alice-token", code: 422,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","nonResourceAttributes":{"path":"/apis","verb":"get"}}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"LocalSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.nonResourceAttributes: Invalid value: {\"path\":\"/apis\",\"verb\":\"get\"}: disallowed on this kind of request","reason":"Invalid","details":{"group":"authorization.k8s.io","kind":"LocalSubjectAccessReview","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: {\"path\":\"/apis\",\"verb\":\"get\"}: disallowed on this kind of request","field":"spec.nonResourceAttributes"}]},"code":422}`},
		"local review naming another namespace": {method: http.MethodPost, path: g + "namespaces/default/localsubjectaccessreviews", token: "alice-token", code: 400,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"other"},"spec":{"user":"bob","resourceAttributes":{"namespace":"other","verb":"get"}}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the namespace of the provided object does not match the namespace sent on the request","reason":"BadRequest","code":400}`},
		"local review without a namespace": {method: http.MethodPost, path: g + "localsubjectaccessreviews", token: "alice-token", code: 404,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}`},
		"selector raw and requirements": {method: http.MethodPost, path: g + "selfsubjectaccessreviews", token: "bob-token", code: 422,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"list","resource":"widgets","labelSelector":{"rawSelector":"a=b","requirements":[{"key":"a","operator":"Exists"}]},"fieldSelector":{}}}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: [spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required, spec.resourceAttributes.labelSelector.rawSelector: Invalid value: \"a=b\": may not specified at the same time as requirements]","reason":"Invalid","details":{"group":"authorization.k8s.io","kind":"SelfSubjectAccessReview","causes":[{"reason":"FieldValueRequired","message":"Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required","field":"spec.resourceAttributes.fieldSelector.requirements"},{"reason":"FieldValueInvalid","message":"Invalid value: \"a=b\": may not specified at the same time as requirements","field":"spec.resourceAttributes.labelSelector.rawSelector"}]},"code":422}`},
		"no rules namespace": {method: http.MethodPost, path: g + "selfsubjectrulesreviews", token: "bob-token", code: 400,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}`,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no namespace on request","reason":"BadRequest","code":400}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, body := send(t, srv, tc.method, tc.path, tc.token, tc.body)
			if code != tc.code || body != tc.want {
				t.Fatalf("got %d %s\nwant %d %s", code, body, tc.code, tc.want)
			}
		})
	}
}

func send(t *testing.T, srv *httptest.Server, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
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
