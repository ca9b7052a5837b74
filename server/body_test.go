package server

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const widgetsPath = "/apis/shop.example.com/v1/namespaces/default/widgets"

func TestRequestBodies(t *testing.T) {
	yamlBody := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: y1\nspec:\n  size: 2\n"
	tests := map[string]struct {
		contentType string
		body        string
		code        int
		reason      metav1.StatusReason
		message     string
		stored      string // JSON the store received
	}{
		"json":                   {contentType: "application/json", body: widgetW1, code: 201, stored: widgetW1},
		"json with charset":      {contentType: "application/json; charset=utf-8", body: widgetW1, code: 201, stored: widgetW1},
		"no content type":        {body: widgetW1, code: 201, stored: widgetW1},
		"yaml converted to json": {contentType: "application/yaml", body: yamlBody, code: 201, stored: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"y1"},"spec":{"size":2}}`},
		"text/plain":             {contentType: "text/plain", body: "size: 1", code: 415, reason: metav1.StatusReasonUnsupportedMediaType, message: "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"},
		"protobuf":               {contentType: "application/vnd.kubernetes.protobuf", body: "x", code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		"merge patch on POST":    {contentType: "application/merge-patch+json", body: "{}", code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		"empty":                  {contentType: "application/json", code: 400, reason: metav1.StatusReasonBadRequest},
		"bad yaml":               {contentType: "application/yaml", body: "a: [", code: 400, reason: metav1.StatusReasonBadRequest},
		"over the limit":         {contentType: "application/json", body: `{"a":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, message: "Request entity too large: limit is 3145728"},
		"exactly the limit":      {contentType: "application/json", body: `{"metadata":{"name":"big"},"a":"` + strings.Repeat("x", DefaultMaxBodyBytes-34) + `"}`, code: 201},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if name == "exactly the limit" && len(tc.body) != DefaultMaxBodyBytes {
				t.Fatalf("body is %d bytes", len(tc.body))
			}
			store := newFakeStore()
			headers := map[string]string{}
			if tc.contentType != "" {
				headers["Content-Type"] = tc.contentType
			}
			w := serve(t, newTestServer(t, store), request{method: "POST", path: widgetsPath, headers: headers, body: tc.body})
			if w.Code != tc.code {
				t.Fatalf("code = %d, want %d; body %.300s", w.Code, tc.code, w.Body)
			}
			if tc.reason != "" {
				st := decodeStatus(t, w)
				if st.Reason != tc.reason || (tc.message != "" && st.Message != tc.message) {
					t.Fatalf("status = %s", w.Body)
				}
				return
			}
			if tc.stored != "" && store.last().body != tc.stored {
				t.Errorf("store got %s, want %s", store.last().body, tc.stored)
			}
		})
	}
}

// errReader fails the test if the body is read past the limit.
type countingReader struct {
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n > 4*DefaultMaxBodyBytes {
		return 0, errors.New("read too far")
	}
	for i := range p {
		p[i] = 'x'
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestOversizedBodyIsNotReadToTheEnd(t *testing.T) {
	for name, length := range map[string]int64{"declared length": 1 << 40, "chunked": -1} {
		t.Run(name, func(t *testing.T) {
			src := &countingReader{}
			r := httptest.NewRequest("POST", widgetsPath, io.NopCloser(src))
			r.ContentLength = length
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			newTestServer(t, newFakeStore()).ServeHTTP(w, r)
			if w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			if src.n > DefaultMaxBodyBytes+64*1024 {
				t.Errorf("read %d bytes of an endless body", src.n)
			}
		})
	}
}
