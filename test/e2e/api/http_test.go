package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestHTTP talks to specd with plain HTTP: the health and version
// endpoints, and requests kubectl would never send, each of which must get a
// Kubernetes Status with the right code and reason and leave nothing in
// storage.
func TestHTTP(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	client := &http.Client{Timeout: 20 * time.Second}

	t.Run("health and version", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/readyz", "/livez"} {
			if r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + p}); r.Code != http.StatusOK {
				t.Errorf("GET %s: %d\n%s", p, r.Code, r.Body)
			}
		}
		r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/version"})
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
	resp := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: widgetsURL, ContentType: "application/json", Body: harness.WidgetJSON("default", "good")})
	if resp.Code != http.StatusCreated {
		t.Fatalf("create a valid widget: %d\n%s", resp.Code, resp.Body)
	}
	good := harness.DecodeJSON(t, resp.Body)

	huge := strings.Replace(harness.WidgetJSON("default", "huge"), `"labels":{"app":"e2e"}`,
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
			body: strings.Replace(harness.WidgetJSON("default", "wrong-kind"), `"kind":"Widget"`, `"kind":"Warehouse"`, 1),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, causeField: "kind", name: "wrong-kind",
		},
		"apiVersion not matching the URL": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: strings.Replace(harness.WidgetJSON("default", "wrong-version"), "shop.example.com/v1", "library.example.com/v1", 1),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "wrong-version",
		},
		"namespace not matching the URL": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: harness.WidgetJSON("elsewhere", "wrong-namespace"),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "wrong-namespace",
		},
		"name not matching the URL on replace": {
			method: http.MethodPut, url: widgetsURL + "/good", contentType: "application/json",
			body: harness.WidgetJSON("default", "other-name"),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "other-name",
		},
		"invalid name": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: harness.WidgetJSON("default", "Not_A_Name"),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, causeField: "metadata.name",
		},
		"invalid spec": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			body: strings.Replace(harness.WidgetJSON("default", "too-small"), `"size":10`, `"size":0`, 1),
			code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, causeField: harness.InvalidWidget.Field, name: "too-small",
		},
		"unknown field with fieldValidation=Strict": {
			method: http.MethodPost, url: widgetsURL + "?fieldValidation=Strict", contentType: "application/json",
			body: strings.Replace(harness.WidgetJSON("default", "unknown-field"), `"size":10`, `"size":10,"sparkles":true`, 1),
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, name: "unknown-field",
		},
		"empty body": {
			method: http.MethodPost, url: widgetsURL, contentType: "application/json",
			code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		},
		"unsupported media type": {
			method: http.MethodPost, url: widgetsURL, contentType: "text/plain",
			body: harness.WidgetJSON("default", "plain-text"),
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
			body: strings.Replace(harness.WidgetJSON("default", "nope-group"), "shop.example.com", "nope.example.com", 1),
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, name: "nope-group",
		},
		"unknown version": {
			method: http.MethodPost, url: s.URL + "/apis/shop.example.com/v9/namespaces/default/widgets", contentType: "application/json",
			body: strings.Replace(harness.WidgetJSON("default", "nope-version"), "/v1", "/v9", 1),
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, name: "nope-version",
		},
		"unknown resource": {
			method: http.MethodPost, url: s.URL + "/apis/shop.example.com/v1/namespaces/default/gadgets", contentType: "application/json",
			body: strings.Replace(harness.WidgetJSON("default", "nope-resource"), "Widget", "Gadget", 1),
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound, name: "nope-resource",
		},
		"get an unknown resource": {
			method: http.MethodGet, url: s.URL + "/apis/shop.example.com/v1/gadgets",
			code: http.StatusNotFound, reason: metav1.StatusReasonNotFound,
		},
	} {
		t.Run("bad input/"+name, func(t *testing.T) {
			resp := testhttp.Do(t, client, testhttp.Request{Method: tc.method, URL: tc.url, ContentType: tc.contentType, Body: tc.body})
			status := harness.CheckStatus(t, resp, tc.code, tc.reason)
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
			list := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/apis/shop.example.com/v1/widgets"})
			if list.Code != http.StatusOK {
				t.Fatalf("list widgets: %d\n%s", list.Code, list.Body)
			}
			var items []string
			listed, _ := harness.DecodeJSON(t, list.Body)["items"].([]any)
			for _, item := range listed {
				items = append(items, fmt.Sprint(harness.Path(item.(map[string]any), "metadata", "name")))
			}
			if !slices.Equal(items, []string{"good"}) {
				t.Errorf("after the refused request the widgets are %v, want [good]", items)
			}
			if tc.name != "" {
				if r := testhttp.Do(t, client, testhttp.Request{URL: widgetsURL + "/" + tc.name}); r.Code != http.StatusNotFound {
					t.Errorf("get %s after the refused request: %d, want 404", tc.name, r.Code)
				}
			}
			now := harness.DecodeJSON(t, testhttp.Do(t, client, testhttp.Request{URL: widgetsURL + "/good"}).Body)
			if rv := harness.Path(now, "metadata", "resourceVersion"); rv != harness.Path(good, "metadata", "resourceVersion") {
				t.Errorf("the good widget changed: resourceVersion %v, was %v", rv, harness.Path(good, "metadata", "resourceVersion"))
			}
		})
	}
}
