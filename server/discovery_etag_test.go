package server

import (
	"net/http"
	"testing"
)

// Every discovery document has an ETag, and a client that sends it back
// in If-None-Match gets 304 Not Modified with no body, as kube's
// aggregator, polling every minute, expects.
func TestDiscoveryETag(t *testing.T) {
	base := startSpecd(t)
	tests := map[string]struct{ path, accept string }{
		"/api":             {"/api", ""},
		"/api aggregated":  {"/api", contentTypeAggregated},
		"/apis":            {"/apis", ""},
		"/apis aggregated": {"/apis", contentTypeAggregated},
		"group":            {"/apis/shop.example.com", ""},
		"group version":    {"/apis/shop.example.com/v1", ""},
	}
	etags := map[string]string{}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := discoveryGet(t, base+tc.path, tc.accept, "")
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != http.StatusOK || len(etag) < 3 || etag[0] != '"' {
				t.Fatalf("%d ETag %q", resp.StatusCode, etag)
			}
			etags[name] = etag
			if again := discoveryGet(t, base+tc.path, tc.accept, ""); again.Header.Get("ETag") != etag {
				t.Errorf("ETag changed with nothing else: %q, then %q", etag, again.Header.Get("ETag"))
			}
			if resp := discoveryGet(t, base+tc.path, tc.accept, etag); resp.StatusCode != http.StatusNotModified || resp.ContentLength > 0 {
				t.Errorf("If-None-Match its ETag: %d, %d bytes", resp.StatusCode, resp.ContentLength)
			}
			if resp := discoveryGet(t, base+tc.path, tc.accept, `"other"`); resp.StatusCode != http.StatusOK {
				t.Errorf("If-None-Match another ETag: %d", resp.StatusCode)
			}
		})
	}
	if etags["/apis"] == etags["/apis aggregated"] {
		t.Errorf("the two forms of /apis share ETag %s", etags["/apis"])
	}
}

func discoveryGet(t *testing.T, url, accept, ifNoneMatch string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
