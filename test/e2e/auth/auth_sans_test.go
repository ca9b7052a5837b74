package auth

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestAuthServingSANs: --tls-sans puts more addresses and names in the
// serving certificate specd generates. specd listens on every address;
// a client that reaches it by an address --tls-sans names, or that
// names the Service (SERVICE.NAMESPACE.svc, what a host cluster's
// aggregator checks), verifies the certificate with the generated CA;
// one that reaches it by an address not named does not.
func TestAuthServingSANs(t *testing.T) {
	t.Parallel()
	// The harness reaches specd at the address it logs, which is
	// 0.0.0.0's here, not the admin kubeconfig's 127.0.0.1: it does not
	// wait for it.
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true, NoWait: true,
		Args: []string{"--listen", "0.0.0.0:0", "--tls-sans", "127.0.0.2, specd.specd-system.svc"}})
	var admin *rest.Config
	harness.Converge(t, "the admin kubeconfig, for a client that reaches specd at 127.0.0.1", func() (bool, string) {
		if !harness.ServingLine.MatchString(s.Stderr.String()) {
			return false, "specd has not served yet"
		}
		var err error
		admin, err = clientcmd.BuildConfigFromFlags("", filepath.Join(s.DataDir, "admin.kubeconfig"))
		return err == nil, fmt.Sprint(err)
	})
	u, err := url.Parse(admin.Host)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	for name, tc := range map[string]struct {
		host, serverName string
		verifies         bool
	}{
		"by an address named":      {host: "127.0.0.2", verifies: true},
		"by the Service's name":    {host: "127.0.0.1", serverName: "specd.specd-system.svc", verifies: true},
		"by an address not named":  {host: "127.0.0.3"},
		"by a Service not named":   {host: "127.0.0.1", serverName: "other.specd-system.svc"},
		"by the loopback, as ever": {host: "127.0.0.1", verifies: true},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := rest.CopyConfig(admin)
			cfg.Host = "https://" + net.JoinHostPort(tc.host, port)
			cfg.TLSClientConfig.ServerName = tc.serverName
			resp, err := harness.HTTPClientFor(t, cfg).Get(cfg.Host + "/readyz")
			var unverified x509.HostnameError
			switch {
			case tc.verifies && err != nil:
				t.Fatalf("GET /readyz: %v", err)
			case tc.verifies:
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET /readyz: %s", resp.Status)
				}
			case !errors.As(err, &unverified):
				t.Errorf("GET /readyz: %v, want the certificate refused for the host", err)
			}
		})
	}
}
