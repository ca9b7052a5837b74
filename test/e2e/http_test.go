package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// TestHTTP talks to specd with plain HTTP: the health and version
// endpoints, and requests kubectl would never send, each of which must get a
// Kubernetes Status with the right code and reason and leave nothing in
// storage.
func TestHTTP(t *testing.T) {
	t.Parallel()
	s := startSpecd(t, specdOptions{})
	client := &http.Client{Timeout: 20 * time.Second}

	t.Run("health and version", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/readyz", "/livez"} {
			if r := do(t, client, http.MethodGet, s.URL+p, "", ""); r.Code != http.StatusOK {
				t.Errorf("GET %s: %d\n%s", p, r.Code, r.Body)
			}
		}
		r := do(t, client, http.MethodGet, s.URL+"/version", "", "")
		if r.Code != http.StatusOK {
			t.Fatalf("GET /version: %d\n%s", r.Code, r.Body)
		}
		var info version.Info
		if err := json.Unmarshal([]byte(r.Body), &info); err != nil || info.GitVersion == "" {
			t.Errorf("GET /version: %v, want a version.Info with gitVersion\n%s", err, r.Body)
		}
	})
	widgetsURL := s.URL + "/apis/shop.example.com/v1/namespaces/default/widgets"

	// One good object first, so that "nothing was stored" is not the
	// answer of a server that stores nothing.
	resp := do(t, client, http.MethodPost, widgetsURL, "application/json", widgetJSON("default", "good"))
	if resp.Code != http.StatusCreated {
		t.Fatalf("create a valid widget: %d\n%s", resp.Code, resp.Body)
	}
	good := decodeJSON(t, resp.Body)

	huge := strings.Replace(widgetJSON("default", "huge"), `"labels":{"app":"e2e"}`,
		fmt.Sprintf(`"annotations":{"big":%q}`, strings.Repeat("x", 3<<20+1024)), 1)
	for name, tc := range map[string]struct {
		method, url, contentType, body string
		code                           int
		reason                         metav1.StatusReason
		causeField                     string // a cause on this field, when set
		name                           string // the object that must not exist afterwards
	}{
		"malformed JSON": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"broken"`,
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "broken",
		},
		"not an object": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: `["a","list"]`,
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		},
		"kind not matching the URL": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "wrong-kind"), `"kind":"Widget"`, `"kind":"Warehouse"`, 1),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, causeField: "kind", name: "wrong-kind",
		},
		"apiVersion not matching the URL": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "wrong-version"), "shop.example.com/v1", "library.example.com/v1", 1),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "wrong-version",
		},
		"namespace not matching the URL": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: widgetJSON("elsewhere", "wrong-namespace"),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "wrong-namespace",
		},
		"name not matching the URL on replace": {
			method: http.MethodPut, url: widgetsURL + "/good", contentType: "application/json",
			body: widgetJSON("default", "other-name"),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "other-name",
		},
		"invalid name": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: widgetJSON("default", "Not_A_Name"),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, causeField: "metadata.name",
		},
		"invalid spec": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "too-small"), `"size":10`, `"size":0`, 1),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, causeField: invalidWidget.Field, name: "too-small",
		},
		"unknown field with fieldValidation=Strict": {
			method: http.MethodPost, url: widgetsURL + "?fieldValidation=Strict", contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "unknown-field"), `"size":10`, `"size":10,"sparkles":true`, 1),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "unknown-field",
		},
		"empty body": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		},
		"unsupported media type": {
			method: http.MethodPost, url: widgetsURL, contentType: "text/plain",
			body: widgetJSON("default", "plain-text"),
			code: http.StatusUnsupportedMediaType, reason: metav1.StatusReasonUnsupportedMediaType, name: "plain-text",
		},
		"body over 3 MiB": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: huge,
			code: http.StatusRequestEntityTooLarge, reason: metav1.StatusReasonRequestEntityTooLarge, name: "huge",
		},
		"replace with a body over 3 MiB": {
			method: http.MethodPut, url: widgetsURL + "/good", contentType: "application/json",
			body: strings.Replace(huge, `"name":"huge"`, `"name":"good"`, 1),
			code: http.StatusRequestEntityTooLarge, reason: metav1.StatusReasonRequestEntityTooLarge,
		},
		"unknown group": {
			method: http.MethodPost, url: s.URL + "/apis/nope.example.com/v1/namespaces/default/widgets", contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "nope-group"), "shop.example.com", "nope.example.com", 1),
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, name: "nope-group",
		},
		"unknown version": {
			method: http.MethodPost, url: s.URL + "/apis/shop.example.com/v9/namespaces/default/widgets", contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "nope-version"), "/v1", "/v9", 1),
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, name: "nope-version",
		},
		"unknown resource": {
			method: http.MethodPost, url: s.URL + "/apis/shop.example.com/v1/namespaces/default/gadgets", contentType: "application/json",
			body: strings.Replace(widgetJSON("default", "nope-resource"), "Widget", "Gadget", 1),
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, name: "nope-resource",
		},
		"get an unknown resource": {
			method: http.MethodGet, url: s.URL + "/apis/shop.example.com/v1/gadgets",
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound,
		},
	} {
		t.Run("bad input/"+name, func(t *testing.T) {
			resp := do(t, client, tc.method, tc.url, tc.contentType, tc.body)
			status := checkStatus(t, resp, tc.code, tc.reason)
			if tc.causeField != "" {
				var fields []string
				if status.Details != nil {
					for _, c := range status.Details.Causes {
						fields = append(fields, c.Field)
					}
				}
				if !slices.Contains(fields, tc.causeField) {
					t.Errorf("causes on %v, want one on %q; status %+v", fields, tc.causeField, status)
				}
			}
			// Nothing was stored, and the good object is untouched.
			list := do(t, client, http.MethodGet, s.URL+"/apis/shop.example.com/v1/widgets", "", "")
			if list.Code != http.StatusOK {
				t.Fatalf("list widgets: %d\n%s", list.Code, list.Body)
			}
			var items []string
			listed, _ := decodeJSON(t, list.Body)["items"].([]any)
			for _, item := range listed {
				items = append(items, fmt.Sprint(path(item.(map[string]any), "metadata", "name")))
			}
			if !slices.Equal(items, []string{"good"}) {
				t.Errorf("after the refused request the widgets are %v, want [good]", items)
			}
			if tc.name != "" {
				if r := do(t, client, http.MethodGet, widgetsURL+"/"+tc.name, "", ""); r.Code != http.StatusNotFound {
					t.Errorf("get %s after the refused request: %d, want 404", tc.name, r.Code)
				}
			}
			now := decodeJSON(t, do(t, client, http.MethodGet, widgetsURL+"/good", "", "").Body)
			if rv := path(now, "metadata", "resourceVersion"); rv != path(good, "metadata", "resourceVersion") {
				t.Errorf("the good widget changed: resourceVersion %v, was %v", rv, path(good, "metadata", "resourceVersion"))
			}
		})
	}
}

// httpResult is one HTTP exchange.
type httpResult struct {
	Code   int
	Header http.Header
	Body   string
}

func do(t *testing.T, client *http.Client, method, url, contentType, body string) httpResult {
	t.Helper()
	return doAs(t, client, method, url, contentType, "application/json", body)
}

// doAs sends a request with the Content-Type (none when "") and Accept
// headers given.
func doAs(t *testing.T, client *http.Client, method, url, contentType, accept, body string) httpResult {
	t.Helper()
	var reader io.Reader
	if body != "" {
		reader = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, reader)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return httpResult{Code: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

// checkStatus checks resp is a Kubernetes Status for a failure with code
// and reason, and returns it.
func checkStatus(t *testing.T, resp httpResult, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	if resp.Code != code {
		t.Errorf("HTTP %d, want %d\n%s", resp.Code, code, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var status metav1.Status
	if err := json.Unmarshal([]byte(resp.Body), &status); err != nil {
		t.Fatalf("body is not a Status: %v\n%s", err, resp.Body)
	}
	if status.Kind != "Status" || status.APIVersion != "v1" || status.Status != metav1.StatusFailure ||
		status.Code != int32(code) || status.Reason != reason || status.Message == "" {
		t.Errorf("status %+v, want kind Status, apiVersion v1, status Failure, code %d, reason %s and a message",
			status, code, reason)
	}
	return status
}
