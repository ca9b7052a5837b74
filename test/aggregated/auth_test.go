package aggregated

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// teamRBAC lets alice, a user of the host's client CA, edit widgets in
// team-a only.
const teamRBAC = `apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widgets, namespace: team-a}
rules:
- apiGroups: [shop.example.com]
  resources: [widgets]
  verbs: [get, list, watch, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-widgets, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: widgets}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
`

// hostUserDecidedBySAR: alice may list widgets in team-a, not in team-b,
// through the host and straight to specd with her client certificate,
// where specd asks the host (SubjectAccessReview).
func hostUserDecidedBySAR(t *testing.T, h *host, s *specd) {
	applyYAML(t, h, teamRBAC)
	h.pki.client(t, "alice", "alice")
	alice := h.kubeconfig(t, "alice", "alice")
	if _, errOut, err := tryKubectl(alice, "get", "widgets", "-n", "team-a"); err != nil {
		t.Fatalf("alice in team-a, through the host: %v %s", err, errOut)
	}
	_, errOut, err := tryKubectl(alice, "get", "widgets", "-n", "team-b")
	if err == nil || !strings.Contains(errOut, `User "alice" cannot list resource "widgets"`) {
		t.Fatalf("alice in team-b, through the host: %v %s", err, errOut)
	}
	client := s.clientWithCert(t, h.pki.path("alice.crt"), h.pki.path("alice.key"))
	if code, body := get(t, client, s.url+"/apis/shop.example.com/v1/namespaces/team-a/widgets", nil); code != http.StatusOK {
		t.Fatalf("alice in team-a, straight to specd: %d %s", code, body)
	}
	code, body := get(t, client, s.url+"/apis/shop.example.com/v1/namespaces/team-b/widgets", nil)
	if code != http.StatusForbidden || !strings.Contains(body, `User \"alice\" cannot list resource \"widgets\" in API group \"shop.example.com\" in the namespace \"team-b\"`) {
		t.Fatalf("alice in team-b, straight to specd: %d %s", code, body)
	}
}

// forgedHeadersRefused: X-Remote-User is only read from the front proxy.
func forgedHeadersRefused(t *testing.T, h *host, s *specd) {
	forged := map[string]string{"X-Remote-User": "admin", "X-Remote-Group": "system:masters"}
	anonymous := s.clientWithCert(t, "", "")
	if code, body := get(t, anonymous, s.url+"/apis/shop.example.com/v1/namespaces/default/widgets", forged); code != http.StatusUnauthorized {
		t.Fatalf("forged X-Remote-User without a certificate: %d %s", code, body)
	}
	// A certificate of the host's client CA is a user, not the proxy.
	alice := s.clientWithCert(t, h.pki.path("alice.crt"), h.pki.path("alice.key"))
	if code, body := get(t, alice, s.url+"/apis/shop.example.com/v1/namespaces/team-b/widgets", forged); code != http.StatusForbidden ||
		!strings.Contains(body, `User \"alice\"`) {
		t.Fatalf("forged X-Remote-User with alice's certificate: %d %s", code, body)
	}
	if code, body := get(t, anonymous, s.url+"/healthz", nil); code != http.StatusOK {
		t.Fatalf("/healthz without credentials: %d %s", code, body)
	}
}

// clientWithCert is an HTTPS client of specd that trusts its generated CA
// and presents certFile (none when empty).
func (s *specd) clientWithCert(t *testing.T, certFile, keyFile string) *http.Client {
	t.Helper()
	ca, err := os.ReadFile(s.dir + "/ca.crt")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}

func get(t *testing.T, c *http.Client, url string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// applyYAML applies manifests to the host as its admin.
func applyYAML(t testing.TB, h *host, manifests string) {
	t.Helper()
	f, err := os.CreateTemp(h.dir, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(manifests); err != nil {
		t.Fatal(err)
	}
	f.Close()
	kubectl(t, h.admin, "apply", "-f", f.Name())
}
