package filters

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkChain is the cost the chain adds to one authorized get: a
// token looked up, request info parsed, the authorizer asked, no audit.
func BenchmarkChain(b *testing.B) {
	h := Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	}), Config{Authenticator: testAuthenticator(), Authorizer: &testAuthorizer{}})
	req := httptest.NewRequest(http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/widgets/w1", nil)
	b.ReportAllocs()
	for b.Loop() {
		req.Header.Set("Authorization", "Bearer bob-token")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("code %d", w.Code)
		}
	}
}
