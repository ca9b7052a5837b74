package aggregated

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scraperReadsMetrics: the token the chart gives the ServiceMonitor (the
// Secret of its scraper ServiceAccount, which the host's token controller
// fills) gets specd's /metrics, as the ServiceMonitor's Prometheus would
// send it; no token gets 401, and the token of a service account not
// bound to the metrics-reader role gets 403 from the host's
// SubjectAccessReview.
func scraperReadsMetrics(t *testing.T, h *host, s *specd) {
	client := s.clientWithCert(t, "", "")
	token := scraperToken(t, h)
	code, body := get(t, client, s.url+"/metrics", map[string]string{"Authorization": "Bearer " + token})
	if code != http.StatusOK || !strings.Contains(body, "apiserver_request_total") {
		t.Fatalf("/metrics with the ServiceMonitor's token: %d %s", code, tail(body))
	}
	if code, body := get(t, client, s.url+"/metrics", nil); code != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d %s", code, tail(body))
	}
	other := serviceAccountToken(t, h, chartRelease) // specd's own: no metrics-reader
	if code, body := get(t, client, s.url+"/metrics", map[string]string{"Authorization": "Bearer " + other}); code != http.StatusForbidden {
		t.Errorf("/metrics with the token of service account %s: %d %s", chartRelease, code, tail(body))
	}
}

// scraperToken is the token in the chart's Secret specd-metrics-token,
// once the host's token controller has written it.
func scraperToken(t *testing.T, h *host) string {
	t.Helper()
	var token string
	eventually(t, 60*time.Second, "the token controller fills Secret specd-metrics-token", func() (bool, string) {
		secret, err := h.client.CoreV1().Secrets(specdNamespace).Get(context.Background(), chartRelease+"-metrics-token", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		token = string(secret.Data["token"])
		return token != "", fmt.Sprintf("keys %d", len(secret.Data))
	})
	return token
}

// serviceAccountToken is a token of the service account name of specd's
// namespace, from the host's TokenRequest API, valid for an hour.
func serviceAccountToken(t testing.TB, h *host, name string) string {
	t.Helper()
	seconds := int64(3600)
	tok, err := h.client.CoreV1().ServiceAccounts(specdNamespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Status.Token
}
