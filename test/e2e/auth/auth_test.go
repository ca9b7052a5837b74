package auth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// authTokenFile is the --token-auth-file of TestAuth, in kube's CSV
// format: token, user, uid, groups.
const authTokenFile = `tina-token,tina,1001,"testers"
vera-token,vera,1002
eve-token,eve,1003
lisa-token,lisa,1004
nobody-token,nobody,1005
`

// authRBAC is what the admin grants TestAuth's users, in the namespaces
// it creates for them.
const authRBAC = `# The namespaces the users work in exist before anything is granted in them.
apiVersion: v1
kind: Namespace
metadata: {name: m-admin}
---
apiVersion: v1
kind: Namespace
metadata: {name: m-token}
---
apiVersion: v1
kind: Namespace
metadata: {name: m-oidc}
---
apiVersion: v1
kind: Namespace
metadata: {name: m-cert}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-e}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-l}
---
# Each authentication method's user may edit its own namespace.
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tina-edit, namespace: m-token}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tina}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: olga-edit, namespace: m-oidc}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "oidc:olga"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devs-edit, namespace: m-cert}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}]
---
# vera views team-a.
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: vera-view, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: vera}]
---
# eve writes RBAC in team-e, and may do anything to widgets but delete them.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rbac-writer, namespace: team-e}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [create, get, list, update, patch, delete]
- apiGroups: [shop.example.com]
  resources: [widgets]
  verbs: [get, list, watch, create, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: eve-rbac-writer, namespace: team-e}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rbac-writer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: eve}]
---
# lisa may list widgets in team-l, but not watch them.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widget-lister, namespace: team-l}
rules:
- apiGroups: [shop.example.com]
  resources: [widgets]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: lisa-lists, namespace: team-l}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: widget-lister}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: lisa}]
`

// authServer is one secure specd with every authenticator on: the
// generated admin certificate, a token file, an OIDC issuer and a
// --client-ca-file CA, with authRBAC applied.
type authServer struct {
	s        *harness.Specd
	admin    *harness.Kubectl
	issuer   *harness.OIDCIssuer
	clientCA *harness.AuthCA
}

func startAuthServer(t *testing.T) *authServer {
	t.Helper()
	dir := t.TempDir()
	a := &authServer{issuer: harness.NewOIDCIssuer(t), clientCA: harness.NewAuthCA(t, "test-client-ca")}
	a.s = harness.StartSpecd(t, harness.SpecdOptions{Secure: true, Args: []string{
		"--token-auth-file", harness.WriteFile(t, dir, "tokens.csv", authTokenFile),
		"--client-ca-file", harness.WriteFile(t, dir, "client-ca.pem", string(a.clientCA.CertPEM())),
		"--oidc-issuer-url", a.issuer.URL, "--oidc-client-id", harness.OIDCClientID, "--oidc-ca-file", a.issuer.CAFile,
		"--oidc-username-claim", "sub", "--oidc-username-prefix", "oidc:",
		"--oidc-groups-claim", "groups", "--oidc-groups-prefix", "oidc:",
	}})
	a.admin = harness.NewKubectl(t, a.s)
	a.admin.OK(t, "apply", "-f", a.admin.Manifest(t, "rbac.yaml", authRBAC))
	// The bindings reach the authorizer through its watches.
	for _, as := range [][]string{
		{"--as", "tina", "-n", "m-token"}, {"--as", "oidc:olga", "-n", "m-oidc"},
		{"--as", "carl", "--as-group", "devs", "-n", "m-cert"}, {"--as", "vera", "-n", "team-a"},
		{"--as", "eve", "-n", "team-e"}, {"--as", "lisa", "-n", "team-l"},
	} {
		a.waitAllowed(t, append([]string{"auth", "can-i", "get", "widgets"}, as...)...)
	}
	return a
}

// waitAllowed waits until the admin's kubectl auth can-i args says yes.
func (a *authServer) waitAllowed(t *testing.T, args ...string) {
	t.Helper()
	harness.Converge(t, strings.Join(args, " "), func() (bool, string) {
		r := a.admin.Run(t, args...)
		return r.Code == 0, r.String()
	})
}

// token is a user of authTokenFile.
func (a *authServer) token(t *testing.T, name string) harness.UserConfig {
	t.Helper()
	return harness.WriteUserKubeconfig(t, a.s.Kubeconfig, name, &clientcmdapi.AuthInfo{Token: name + "-token"})
}

// TestAuth: each authentication method works with kubectl, RBAC decides
// what each user may do with kube's answers, and plugins work under it.
func TestAuth(t *testing.T) {
	t.Parallel()
	a := startAuthServer(t)
	t.Run("methods", a.testMethods)
	t.Run("view in one namespace", a.testViewOneNamespace)
	t.Run("can-i", a.testCanI)
	t.Run("whoami and impersonation", a.testImpersonation)
	t.Run("escalation", a.testEscalation)
	t.Run("watch authorized at start", a.testWatchAuthorized)
	t.Run("unauthenticated", a.testUnauthenticated)
	t.Run("plugins", a.testPlugins)
}

// authMethod is one way to authenticate, with the identity it gives.
type authMethod struct {
	name      string
	namespace string
	user      harness.UserConfig
	username  string
	groups    []string
}

func (a *authServer) methods(t *testing.T) []authMethod {
	t.Helper()
	admin := harness.UserConfig{Path: a.s.Kubeconfig, Rest: harness.RestConfig(a.s)}
	oidc := harness.WriteUserKubeconfig(t, a.s.Kubeconfig, "olga", &clientcmdapi.AuthInfo{Token: a.issuer.IDToken(t, "olga", "devs")})
	cert := harness.WriteUserKubeconfig(t, a.s.Kubeconfig, "carl", a.clientCA.ClientCert(t, "carl", "devs"))
	return []authMethod{
		{"admin certificate", "m-admin", admin, "specd-admin", []string{"system:masters", "system:authenticated"}},
		{"token", "m-token", a.token(t, "tina"), "tina", []string{"testers", "system:authenticated"}},
		{"oidc", "m-oidc", oidc, "oidc:olga", []string{"oidc:devs", "system:authenticated"}},
		{"client-ca-file certificate", "m-cert", cert, "carl", []string{"devs", "system:authenticated"}},
	}
}

// testMethods: each method's user creates, gets, watches, applies and
// deletes a widget with kubectl, and is who kubectl auth whoami says.
func (a *authServer) testMethods(t *testing.T) {
	for _, m := range a.methods(t) {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			k := harness.KubectlWith(t, a.s, m.user.Path)
			if m.name == "oidc" {
				// The OIDC authenticator fetches the issuer's keys in the
				// background after start.
				harness.Converge(t, "the OIDC user is authenticated", func() (bool, string) {
					r := k.Run(t, "auth", "whoami", "-o", "json")
					return r.Code == 0, r.String()
				})
			}
			checkWhoami(t, k, m.username, m.groups)
			widgetLifecycle(t, k, m.user.Rest, m.namespace)
		})
	}
}

// checkWhoami checks kubectl auth whoami's user name and groups.
func checkWhoami(t *testing.T, k *harness.Kubectl, username string, groups []string, args ...string) {
	t.Helper()
	got := k.OK(t, append([]string{"auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"}, args...)...)
	if want := fmt.Sprintf("%s %s", username, toJSON(t, groups)); got != want {
		t.Errorf("kubectl auth whoami: %q, want %q", got, want)
	}
}

// widgetLifecycle creates, gets, watches, applies and deletes a widget
// in ns with k; cfg (the same user) watches the changes.
func widgetLifecycle(t *testing.T, k *harness.Kubectl, cfg *rest.Config, ns string) {
	t.Helper()
	manifest := k.Manifest(t, "w1.yaml", harness.WidgetYAML(ns, "w1"))
	if got := k.OK(t, "create", "-f", manifest); got != "widget.shop.example.com/w1 created\n" {
		t.Errorf("kubectl create: %q", got)
	}
	rv := k.OK(t, "get", "widget", "w1", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")
	// kubectl's own watch: the object, then the watch until the timeout.
	if r := k.Run(t, "get", "widgets", "-n", ns, "-w", "-o", "name", "--request-timeout=1s"); !strings.HasPrefix(r.Stdout, "widget.shop.example.com/w1\n") || strings.Contains(r.Stderr, "Forbidden") {
		t.Errorf("kubectl get -w:\n%s", r)
	}
	ctx := harness.Context(t, time.Minute)
	w, err := harness.DynamicClientFor(t, cfg).Resource(harness.Widgets.GVR()).Namespace(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	applied := strings.Replace(harness.WidgetYAML(ns, "w1"), "size: 10", "size: 11", 1)
	if got := k.OK(t, "apply", "-f", k.Manifest(t, "w1.yaml", applied)); got != "widget.shop.example.com/w1 configured\n" {
		t.Errorf("kubectl apply: %q", got)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Modified || sizeOf(ev) != 11 {
		t.Errorf("after apply: %s of size %d, want MODIFIED of size 11: %+v", ev.Type, sizeOf(ev), ev.Object)
	}
	if got := k.OK(t, "delete", "widget", "w1", "-n", ns); got != `widget.shop.example.com "w1" deleted from `+ns+" namespace\n" {
		t.Errorf("kubectl delete: %q", got)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Deleted {
		t.Errorf("after delete: %s, want DELETED", ev.Type)
	}
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-time.After(harness.ClientTimeout):
		t.Fatalf("no watch event within %s", harness.ClientTimeout)
	}
	return watch.Event{}
}

func sizeOf(ev watch.Event) int64 {
	u, ok := ev.Object.(*unstructured.Unstructured)
	if !ok {
		return -1
	}
	size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size")
	return size
}

// forbidden is kube's message of a 403 for a namespaced widget request.
func forbidden(user, verb, name, ns string) string {
	subject := "widgets.shop.example.com"
	if name != "" {
		subject += fmt.Sprintf(" %q", name)
	}
	return fmt.Sprintf(`%s is forbidden: User %q cannot %s resource "widgets" in API group "shop.example.com" in the namespace %q`, subject, user, verb, ns)
}

// testViewOneNamespace: view in team-a lets vera read there only.
func (a *authServer) testViewOneNamespace(t *testing.T) {
	a.admin.OK(t, "create", "-f", a.admin.Manifest(t, "a1.yaml", harness.WidgetYAML("team-a", "a1")))
	vera := a.token(t, "vera")
	k := harness.KubectlWith(t, a.s, vera.Path)
	if got := k.OK(t, "get", "widgets", "-n", "team-a", "-o", "name"); got != "widget.shop.example.com/a1\n" {
		t.Errorf("vera lists team-a: %q", got)
	}
	stderr := k.Fail(t, "get", "widgets", "-n", "team-b")
	if want := "Error from server (Forbidden): " + forbidden("vera", "list", "", "team-b"); !strings.Contains(stderr, want) {
		t.Errorf("vera lists team-b: %q, want %q", stderr, want)
	}
	dyn := harness.DynamicClientFor(t, vera.Rest).Resource(harness.Widgets.GVR())
	ctx := harness.Context(t, time.Minute)
	details := &metav1.StatusDetails{Group: harness.Widgets.Group, Kind: harness.Widgets.Plural}
	_, err := dyn.Namespace("team-b").List(ctx, metav1.ListOptions{})
	harness.CheckStatusError(t, "list team-b", err, apierrors.IsForbidden, 403, metav1.StatusReasonForbidden, details, forbidden("vera", "list", "", "team-b"))
	_, err = dyn.Namespace("team-a").Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("team-a", "a2")}, metav1.CreateOptions{})
	harness.CheckStatusError(t, "create in team-a", err, apierrors.IsForbidden, 403, metav1.StatusReasonForbidden, details, forbidden("vera", "create", "", "team-a"))
	err = dyn.Namespace("team-a").Delete(ctx, "a1", metav1.DeleteOptions{})
	named := &metav1.StatusDetails{Name: "a1", Group: harness.Widgets.Group, Kind: harness.Widgets.Plural}
	harness.CheckStatusError(t, "delete in team-a", err, apierrors.IsForbidden, 403, metav1.StatusReasonForbidden, named, forbidden("vera", "delete", "a1", "team-a"))
	stderr = k.Fail(t, "patch", "widget", "a1", "-n", "team-a", "--type", "merge", "-p", `{"spec":{"size":1}}`)
	if want := "Error from server (Forbidden): " + forbidden("vera", "patch", "a1", "team-a"); !strings.Contains(stderr, want) {
		t.Errorf("vera patches in team-a: %q, want %q", stderr, want)
	}
}

// testCanI: kubectl auth can-i answers yes (exit 0) and no (exit 1) as
// RBAC decides, and --list lists the rules.
func (a *authServer) testCanI(t *testing.T) {
	k := harness.KubectlWith(t, a.s, a.token(t, "vera").Path)
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"list", "widgets", "-n", "team-a"}, "yes", 0},
		{[]string{"watch", "widgets.shop.example.com", "-n", "team-a"}, "yes", 0},
		{[]string{"list", "widgets", "-n", "team-b"}, "no", 1},
		{[]string{"create", "widgets", "-n", "team-a"}, "no", 1},
		{[]string{"list", "roles", "-n", "team-a"}, "no", 1},
		{[]string{"get", "/version"}, "yes", 0},
	} {
		r := k.Run(t, append([]string{"auth", "can-i"}, c.args...)...)
		if strings.TrimSpace(r.Stdout) != c.want || r.Code != c.code {
			t.Errorf("want %s, exit %d:\n%s", c.want, c.code, r)
		}
	}
	rows := map[string]string{}
	for _, f := range lineFields(k.OK(t, "auth", "can-i", "--list", "-n", "team-a")) {
		rows[f[0]] = strings.Join(f[1:], " ")
	}
	for res, want := range map[string]string{
		"widgets.shop.example.com":                      "[] [] [get list watch]",
		"selfsubjectaccessreviews.authorization.k8s.io": "[] [] [create]",
		"Resources": "Non-Resource URLs Resource Names Verbs",
	} {
		if rows[res] != want {
			t.Errorf("can-i --list: %s %q, want %q; all: %v", res, rows[res], want, rows)
		}
	}
	if _, ok := rows["roles.rbac.authorization.k8s.io"]; ok {
		t.Errorf("can-i --list: view lists roles: %v", rows)
	}
}

// testImpersonation: kubectl auth whoami, and --as for a user who may
// impersonate (the admin) and one who may not.
func (a *authServer) testImpersonation(t *testing.T) {
	// As kube-apiserver, with the certificate's fingerprint as extra.
	whoami := lineFields(a.admin.OK(t, "auth", "whoami"))
	want := [][]string{{"ATTRIBUTE", "VALUE"}, {"Username", "specd-admin"}, {"Groups", "[system:masters", "system:authenticated]"}}
	if len(whoami) != 4 || !slices.EqualFunc(whoami[:3], want, slices.Equal) ||
		!strings.HasPrefix(strings.Join(whoami[3], " "), "Extra: authentication.kubernetes.io/credential-id [X509SHA256=") {
		t.Errorf("kubectl auth whoami: %q, want %q and the credential id", whoami, want)
	}
	checkWhoami(t, a.admin, "vera", []string{"system:authenticated"}, "--as", "vera")
	checkWhoami(t, a.admin, "carl", []string{"devs", "system:authenticated"}, "--as", "carl", "--as-group", "devs")
	if got := a.admin.OK(t, "get", "widgets", "-n", "team-a", "-o", "name", "--as", "vera"); got != "widget.shop.example.com/a1\n" {
		t.Errorf("admin --as vera lists team-a: %q", got)
	}
	stderr := a.admin.Fail(t, "get", "widgets", "-n", "team-b", "--as", "vera")
	if want := forbidden("vera", "list", "", "team-b"); !strings.Contains(stderr, want) {
		t.Errorf("admin --as vera lists team-b: %q, want %q", stderr, want)
	}
	a.testImpersonationRefused(t)
}

// testImpersonationRefused: vera may not impersonate.
func (a *authServer) testImpersonationRefused(t *testing.T) {
	vera := a.token(t, "vera")
	// kube-apiserver 1.36+ (constrained impersonation, on by default)
	// tries the impersonate-on modes first and answers the first refusal.
	want := forbidden("vera", "impersonate-on:user-info:list", "", "team-a")
	r := testhttp.Do(t, harness.HTTPClientFor(t, vera.Rest), testhttp.Request{
		URL:    a.s.URL + "/apis/shop.example.com/v1/namespaces/team-a/widgets",
		Header: http.Header{"Impersonate-User": {"tina"}},
	})
	st := harness.CheckStatus(t, r, http.StatusForbidden, metav1.StatusReasonForbidden)
	if st.Message != want {
		t.Errorf("Impersonate-User tina as vera: %q, want %q", st.Message, want)
	}
	// kubectl's discovery of the group lists, refused alike, drops kube's
	// message; a warm discovery cache, as users have, shows it.
	k := harness.KubectlWith(t, a.s, vera.Path)
	k.OK(t, "get", "widgets", "-n", "team-a")
	if stderr := k.Fail(t, "get", "widgets", "-n", "team-a", "--as", "tina"); !strings.Contains(stderr, "Error from server (Forbidden): "+want) {
		t.Errorf("vera --as tina: %q, want %q", stderr, want)
	}
}

// escalationMessage is kube's 403 message for a write of RBAC that grants
// what eve does not hold.
func escalationMessage(resource, name string, missing ...string) string {
	return fmt.Sprintf(`%s.rbac.authorization.k8s.io %q is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n%s",
		resource, name, strings.Join(missing, "\n"))
}

// testEscalation: eve may write roles and bindings in team-e, but only
// for rights she holds.
func (a *authServer) testEscalation(t *testing.T) {
	eve := a.token(t, "eve")
	k := harness.KubectlWith(t, a.s, eve.Path)
	k.OK(t, "create", "role", "reader", "--verb=get,list", "--resource=widgets", "-n", "team-e")
	k.OK(t, "create", "rolebinding", "tina-reads", "--role=reader", "--user=tina", "-n", "team-e")

	deleter := escalationMessage("roles", "deleter", `{APIGroups:["shop.example.com"], Resources:["widgets"], Verbs:["delete"]}`)
	if stderr := k.Fail(t, "create", "role", "deleter", "--verb=delete", "--resource=widgets", "-n", "team-e"); !strings.Contains(stderr, deleter) {
		t.Errorf("kubectl create role deleter: %q, want %q", stderr, deleter)
	}
	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"name": "deleter", "namespace": "team-e"},
		"rules":    []any{map[string]any{"apiGroups": []any{"shop.example.com"}, "resources": []any{"widgets"}, "verbs": []any{"delete"}}},
	}}
	roles := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}
	_, err := harness.DynamicClientFor(t, eve.Rest).Resource(roles).Namespace("team-e").Create(harness.Context(t, time.Minute), role, metav1.CreateOptions{})
	harness.CheckStatusError(t, "create Role deleter", err, apierrors.IsForbidden, 403, metav1.StatusReasonForbidden,
		&metav1.StatusDetails{Name: "deleter", Group: "rbac.authorization.k8s.io", Kind: "roles"}, deleter)

	stderr := k.Fail(t, "create", "rolebinding", "eve-admin", "--clusterrole=cluster-admin", "--user=eve", "-n", "team-e")
	if want := escalationMessage("rolebindings", "eve-admin", `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`); !strings.Contains(stderr, want) {
		t.Errorf("kubectl create rolebinding to cluster-admin: %q, want %q", stderr, want)
	}
	if r := k.Run(t, "auth", "can-i", "delete", "widgets", "-n", "team-e"); r.Code != 1 {
		t.Errorf("eve may delete widgets after the refused writes:\n%s", r)
	}
}

// testWatchAuthorized: a watch needs the watch verb when it starts; list
// is not enough.
func (a *authServer) testWatchAuthorized(t *testing.T) {
	url := a.s.URL + "/apis/shop.example.com/v1/namespaces/team-l/widgets"
	lisa := harness.HTTPClientFor(t, a.token(t, "lisa").Rest)
	if r := testhttp.Do(t, lisa, testhttp.Request{URL: url}); r.Code != http.StatusOK {
		t.Errorf("lisa lists: %d %s", r.Code, r.Body)
	}
	for _, user := range []string{"lisa", "nobody"} {
		client := harness.HTTPClientFor(t, a.token(t, user).Rest)
		st := harness.CheckStatus(t, testhttp.Do(t, client, testhttp.Request{URL: url + "?watch=true"}), http.StatusForbidden, metav1.StatusReasonForbidden)
		if want := forbidden(user, "watch", "", "team-l"); st.Message != want {
			t.Errorf("%s watches: %q, want %q", user, st.Message, want)
		}
	}
	k := harness.KubectlWith(t, a.s, a.token(t, "lisa").Path)
	stderr := k.Fail(t, "get", "widgets", "-n", "team-l", "-w", "--request-timeout=5s")
	if want := forbidden("lisa", "watch", "", "team-l"); !strings.Contains(stderr, want) {
		t.Errorf("lisa kubectl get -w: %q, want %q", stderr, want)
	}
}

// testUnauthenticated: no credentials, a bad token or a certificate of
// another CA get 401, but for the public health and version paths.
func (a *authServer) testUnauthenticated(t *testing.T) {
	anonymous := rest.AnonymousClientConfig(harness.RestConfig(a.s))
	none := harness.HTTPClientFor(t, anonymous)
	for _, p := range []string{"/apis", "/api", "/apis/shop.example.com/v1/namespaces/default/widgets", "/openapi/v3", "/metrics"} {
		st := harness.CheckStatus(t, testhttp.Do(t, none, testhttp.Request{URL: a.s.URL + p}), http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
		if st.Message != "Unauthorized" {
			t.Errorf("%s: message %q, want Unauthorized", p, st.Message)
		}
	}
	for _, p := range []string{"/livez", "/readyz", "/healthz", "/version"} {
		if r := testhttp.Do(t, none, testhttp.Request{URL: a.s.URL + p}); r.Code != http.StatusOK {
			t.Errorf("%s without credentials: %d %s", p, r.Code, r.Body)
		}
	}
	bad := rest.CopyConfig(anonymous)
	bad.BearerToken = "not-a-token"
	harness.CheckStatus(t, testhttp.Do(t, harness.HTTPClientFor(t, bad), testhttp.Request{URL: a.s.URL + "/apis"}), http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	// A certificate for an admin from a CA specd does not trust.
	other := harness.WriteUserKubeconfig(t, a.s.Kubeconfig, "mallory", harness.NewAuthCA(t, "other-ca").ClientCert(t, "specd-admin", "system:masters"))
	harness.CheckStatus(t, testhttp.Do(t, harness.HTTPClientFor(t, other.Rest), testhttp.Request{URL: a.s.URL + "/apis"}), http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	k := harness.KubectlWith(t, a.s, other.Path)
	// kubectl's discovery asks for its own media type, so the 401 comes
	// without kube's Status text, as from kube-apiserver.
	if stderr := k.Fail(t, "get", "widgets"); !strings.Contains(stderr, "error: You must be logged in to the server (") {
		t.Errorf("kubectl with another CA's certificate: %q", stderr)
	}
}

// testPlugins: the example fleet-controller, as its own user under RBAC
// over TLS, makes a fleet's ships and records its Events with no binding
// written by hand.
func (a *authServer) testPlugins(t *testing.T) {
	a.admin.OK(t, "create", "-f", a.admin.Manifest(t, "fleet.yaml", `apiVersion: fleet.example.com/v1
kind: Fleet
metadata:
  name: south
spec:
  replicas: 2
  class: tanker
`))
	ctx := harness.Context(t, time.Minute)
	dyn := harness.DynamicClient(t, a.s)
	harness.WaitShips(t, ctx, dyn, "south", 2)
	fleet := harness.WaitFleet(t, ctx, dyn, "south", 2)
	for _, verb := range []string{"create", "patch"} {
		if r := a.admin.OK(t, "auth", "can-i", verb, "events", "-n", "sea", "--as", "system:plugin:fleet-controller"); strings.TrimSpace(r) != "yes" {
			t.Errorf("can fleet-controller %s events: %q", verb, r)
		}
	}
	harness.CheckFleetEvent(t, harness.WaitFleetEvent(t, ctx, dyn, fleet, "Scaled to 2 ships", 1), fleet)
	a.admin.OK(t, "delete", "fleet", "south", "--timeout=30s")
	harness.WaitShips(t, ctx, dyn, "south", 0)
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
