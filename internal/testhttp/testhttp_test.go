package testhttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestDo: a request carries the method, headers and body asked for, with
// JSON accepted unless said otherwise, and its answer is read whole.
func TestDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen", strings.Join([]string{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Accept"),
			r.Header.Get("Authorization"), r.Header.Get("Impersonate-User")}, "|"))
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	tests := map[string]struct {
		req  Request
		seen string
	}{
		"get":  {Request{URL: srv.URL}, "GET||application/json||"},
		"post": {Request{Method: http.MethodPost, URL: srv.URL, ContentType: "application/yaml", Body: "a: 1"}, "POST|application/yaml|application/json||"},
		"headers": {Request{URL: srv.URL, Accept: "application/json;as=Table;v=v1;g=meta.k8s.io", Token: "t0k",
			Header: http.Header{"Impersonate-User": {"tina"}}}, "GET||application/json;as=Table;v=v1;g=meta.k8s.io|Bearer t0k|tina"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := Do(t, srv.Client(), tc.req)
			if r.Code != http.StatusCreated || r.Header.Get("X-Seen") != tc.seen || r.Body != tc.req.Body {
				t.Errorf("answer %d %q %q, want 201 %q %q", r.Code, r.Header.Get("X-Seen"), r.Body, tc.seen, tc.req.Body)
			}
		})
	}
}

// TestSendStream: the body of a 200 answer to a Stream request is left
// unread, that of a refusal is read; no answer is an error.
func TestSendStream(t *testing.T) {
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("refuse") != "" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-hold // a watch that never ends
	}))
	t.Cleanup(func() { close(hold); srv.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r, err := Send(ctx, srv.Client(), Request{URL: srv.URL, Stream: true})
	if err != nil || r.Code != http.StatusOK || r.Body != "" {
		t.Errorf("stream: %d %q %v, want 200 and no body read", r.Code, r.Body, err)
	}
	r, err = Send(ctx, srv.Client(), Request{URL: srv.URL + "?refuse=1", Stream: true})
	if err != nil || r.Code != http.StatusForbidden || r.Body != "no\n" {
		t.Errorf("refusal: %d %q %v, want 403 and its body", r.Code, r.Body, err)
	}
	if _, err := Send(ctx, srv.Client(), Request{URL: "http://127.0.0.1:0/"}); err == nil {
		t.Error("a request to port 0: no error")
	}
}
