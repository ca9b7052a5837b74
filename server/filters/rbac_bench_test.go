package filters_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testpki"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/server/authn"
	"github.com/specd-io/specd/server/filters"
)

// BenchmarkAuthnRBAC is what the chain costs one request of a user who is
// not in system:masters: authenticated by a token from --token-auth-file
// or by a client certificate (its chain verified against the client CA,
// as on every request), then decided by the RBAC Authorizer that the
// watches of the four RBAC resources filled from etcd, among many
// RoleBindings and ClusterRoles. The chain is cmd/specd's, with its
// default limits and timeout and no audit. It reports the median and
// 99th percentile of the requests' durations (p50-ns, p99-ns); the
// larger sizes show that the bindings are looked up by subject, not
// scanned.
func BenchmarkAuthnRBAC(b *testing.B) {
	for _, size := range []struct{ bindings, roles int }{{1000, 200}, {10000, 200}, {10000, 2000}} {
		authz := loadedAuthorizer(b, size.bindings, size.roles)
		const u = 537 // bound in ns-53 to role-(537 mod roles)
		creds := newCredentials(b, fmt.Sprintf("user-%d", u), fmt.Sprintf("team-%d", u%50))
		h := filters.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
		}), filters.Config{Authenticator: creds.authn, Authorizer: authz,
			MaxRequestsInFlight: 400, MaxMutatingRequestsInFlight: 200, RequestTimeout: time.Minute})
		// The last rule of the role allows update: every rule is tried.
		path := fmt.Sprintf("/apis/g%d.example.com/v1/namespaces/ns-%d/widgets/w", u%size.roles, u/10)
		for _, cred := range []string{"token", "x509"} {
			name := fmt.Sprintf("%s/bindings=%d/clusterroles=%d", cred, size.bindings, size.roles)
			b.Run(name, func(b *testing.B) { benchRequests(b, h, creds.request(cred, path)) })
		}
	}
}

// benchRequests serves req b.N times one after another and reports the
// median and 99th percentile of their durations.
func benchRequests(b *testing.B, h http.Handler, req *http.Request) {
	took := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w := httptest.NewRecorder()
		// A copy each time: the authentication filter takes the
		// Authorization header off the request it serves. (The copy's
		// allocations count in B/op and allocs/op, not in the durations.)
		r := req.Clone(req.Context())
		start := time.Now()
		h.ServeHTTP(w, r)
		took[i] = time.Since(start)
		if w.Code != http.StatusOK {
			b.Fatalf("code %d: %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
}

// loadedAuthorizer writes roles ClusterRoles (role-i may read widgets
// and gadgets of g<i>.example.com, and write widgets) and bindings
// RoleBindings (ten a namespace: b-i binds user-i and group team-(i
// mod 50) in ns-(i/10) to role-(i mod roles)) besides the default policy
// into a new etcd, and returns an Authorizer once its watches have
// listed them.
func loadedAuthorizer(b *testing.B, bindings, roles int) *rbac.Authorizer {
	b.Helper()
	reg, _, err := schemas.NewLoader(b.TempDir(), builtin.Schemas()).Load()
	if err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	st := etcdstorage.New(etcdtest.Start(b))
	caches := watchcache.New(st, watchcache.Config{Logger: quiet})
	b.Cleanup(caches.Close)
	store := engine.NewStore(st, engine.Options{Cache: caches, Logger: quiet})
	ctx, cancel := context.WithCancel(rbac.WithInternalUser(context.Background()))
	b.Cleanup(cancel)
	if err := rbac.Reconcile(ctx, store, reg, rbac.DefaultPolicy()); err != nil {
		b.Fatal(err)
	}
	writeAll(b, ctx, store, reg.Lookup(rbac.Group, rbac.Version, "clusterroles"), roles, clusterRoleJSON)
	writeAll(b, ctx, store, reg.Lookup(rbac.Group, rbac.Version, "rolebindings"), bindings, func(i int) (string, string) {
		return roleBindingJSON(i, roles)
	})
	authz := rbac.New(rbac.Config{Registry: func() *schemas.Registry { return reg }, Logger: quiet})
	go authz.Run(ctx, store)
	for !authz.Synced() {
		time.Sleep(10 * time.Millisecond)
	}
	return authz
}

// writeAll creates n objects of rv, body(i) giving each one's namespace
// and JSON, from a few writers at once.
func writeAll(b *testing.B, ctx context.Context, store *engine.Store, rv *schemas.ResourceVersion, n int, body func(int) (string, string)) {
	b.Helper()
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				ns, obj := body(i)
				if _, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: ns}, Body: []byte(obj), Options: engine.WriteOptions{}}); err != nil {
					errs <- fmt.Errorf("create %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

func clusterRoleJSON(i int) (string, string) {
	return "", fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"role-%d"},"rules":[
	  {"apiGroups":["g%[1]d.example.com"],"resources":["widgets","gadgets"],"verbs":["get","list","watch"]},
	  {"apiGroups":["g%[1]d.example.com"],"resources":["widgets"],"verbs":["create","update","patch","delete"]}]}`, i)
}

func roleBindingJSON(i, roles int) (string, string) {
	ns := fmt.Sprintf("ns-%d", i/10)
	return ns, fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b-%d","namespace":%q},
	  "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"role-%[3]d"},
	  "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"user-%[1]d"},
	    {"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"team-%[4]d"}]}`, i, ns, i%roles, i%50)
}

// credentials are one user's token and client certificate, and the
// authenticator that accepts both, built as cmd/specd builds it.
type credentials struct {
	authn *authn.Authenticator
	token string
	cert  *x509.Certificate
}

// newCredentials makes a client CA (ECDSA P-256, as server/certs
// generates), a certificate of name in group signed by it, a token file
// naming the same user, and the authenticator of both.
func newCredentials(b *testing.B, name, group string) credentials {
	b.Helper()
	ca := testpki.NewCA(b, "bench-ca")
	c := credentials{token: "t-" + name, cert: clientCert(b, ca, name, group)}
	dir := b.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, fmt.Appendf(nil, "%s,%s,uid-%[2]s,%q\n", c.token, name, group), 0o600); err != nil {
		b.Fatal(err)
	}
	caContent, err := dynamiccertificates.NewStaticCAContent("client-ca", ca.PEM())
	if err != nil {
		b.Fatal(err)
	}
	c.authn, err = authn.New(b.Context(), authn.Config{ClientCA: caContent, TokenAuthFile: tokens})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// request is a PUT of path carrying the credential cred: a bearer token,
// or the client certificate as the TLS handshake leaves it.
func (c credentials) request(cred, path string) *http.Request {
	req := httptest.NewRequest(http.MethodPut, path, nil)
	if cred == "token" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	} else {
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c.cert}}
	}
	return req
}

func clientCert(b *testing.B, ca *testpki.CA, name, group string) *x509.Certificate {
	b.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name, Organization: []string{group}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	return testpki.Sign(b, tmpl, ca.Cert, testpki.NewKey(b), ca.Key)
}
