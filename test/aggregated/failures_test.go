package aggregated

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/internal/testpki"
)

// frontProxyCAChange: a front-proxy CA added to the host's ConfigMap
// kube-system/extension-apiserver-authentication is trusted by specd
// within seconds, without a restart.
func frontProxyCAChange(t *testing.T, h *host, s *specd) {
	ca := testpki.NewCA(t, "front-proxy-ca-2")
	h.pki.leaf(t, ca, "proxy2", x509.ExtKeyUsageClientAuth, "front-proxy-client", nil, nil, nil)
	// A new client each time: a connection made before the change was
	// not asked for the new CA's certificate, and carries none.
	proxy := func() *http.Client { return s.clientWithCert(t, h.pki.path("proxy2.crt"), h.pki.path("proxy2.key")) }
	as := map[string]string{"X-Remote-User": "bob", "X-Remote-Group": "system:masters"}
	url := s.url + "/apis/shop.example.com/v1/namespaces/default/widgets"
	if code, body := get(t, proxy(), url, as); code != http.StatusUnauthorized {
		t.Fatalf("a proxy of an unknown CA: %d %s", code, body)
	}
	ctx := context.Background()
	cms := h.client.CoreV1().ConfigMaps("kube-system")
	cm, err := cms.Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["requestheader-client-ca-file"] += string(ca.PEM())
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the new front-proxy CA trusted", func() (bool, string) {
		code, body := get(t, proxy(), url, as)
		return code == http.StatusOK, body + " (the CAs specd asks for: " + strings.Join(askedCAs(t, s), ", ") + ")"
	})
}

// hostUnreachable: with kube-apiserver gone, a decision specd cached
// keeps serving; a new one fails closed, saying why.
func hostUnreachable(t *testing.T, h *host, s *specd) {
	alice := s.clientWithCert(t, h.pki.path("alice.crt"), h.pki.path("alice.key"))
	cached := s.url + "/apis/shop.example.com/v1/namespaces/team-a/widgets"
	if code, body := get(t, alice, cached, nil); code != http.StatusOK {
		t.Fatalf("alice in team-a: %d %s", code, body)
	}
	port := h.url[strings.LastIndex(h.url, ":")+1:]
	h.apiserver.kill()
	if code, body := get(t, alice, cached, nil); code != http.StatusOK {
		t.Errorf("a cached decision, the host down: %d %s", code, body)
	}
	code, body := get(t, alice, s.url+"/apis/shop.example.com/v1/namespaces/team-a/widgets/nope", nil)
	if code != http.StatusInternalServerError || !strings.Contains(body, "the host cluster could not decide (SubjectAccessReview)") {
		t.Errorf("a new decision, the host down: %d %s", code, body)
	}
	h.restartAPIServer(t, port)
}

// askedCAs are the names of the CAs specd asks client certificates of.
func askedCAs(t *testing.T, s *specd) []string {
	var names []string
	c := s.clientWithCert(t, "", "")
	c.Transport.(*http.Transport).TLSClientConfig.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		for _, raw := range cri.AcceptableCAs {
			var name pkix.RDNSequence
			if _, err := asn1.Unmarshal(raw, &name); err == nil {
				var n pkix.Name
				n.FillFromRDNSequence(&name)
				names = append(names, n.CommonName)
			}
		}
		return &tls.Certificate{}, nil
	}
	get(t, c, s.url+"/healthz", nil)
	return names
}
