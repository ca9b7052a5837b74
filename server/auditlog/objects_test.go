package auditlog

import (
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/filters"
)

const managed = `{"metadata":{"name":"w1","namespace":"ns1","managedFields":[{"manager":"kubectl"}]}}`

// echoList logs the request body and answers a list holding it.
func echoList(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	LogRequestObject(r.Context(), widgets, "", body)
	list := []byte(`{"kind":"WidgetList","items":[` + string(body) + `,` + string(body) + `]}`)
	LogResponseObject(r.Context(), list)
	_, _ = w.Write(list)
}

func TestOmitManagedFields(t *testing.T) {
	for name, omit := range map[string]bool{"omitted": true, "kept": false} {
		t.Run(name, func(t *testing.T) {
			policy := policyWith("RequestResponse")
			if omit {
				policy += "omitManagedFields: true\n"
			}
			f, ev, b := newAudit(t, policy)
			serve(t, chain(http.HandlerFunc(echoList), ev, b, alice), "POST", "/apis/example.com/v1/namespaces/ns1/widgets", managed)
			evs := events(t, f.LogPath)
			e := evs[len(evs)-1]
			req, resp := string(e.RequestObject.Raw), string(e.ResponseObject.Raw)
			if got := strings.Count(req, "managedFields"); got != map[bool]int{true: 0, false: 1}[omit] {
				t.Errorf("requestObject %s", req)
			}
			if got := strings.Count(resp, "managedFields"); got != map[bool]int{true: 0, false: 2}[omit] {
				t.Errorf("responseObject %s", resp)
			}
			if !strings.Contains(resp, `"name":"w1"`) {
				t.Errorf("responseObject %s: want the items", resp)
			}
		})
	}
}

func TestResponseStatusFromBody(t *testing.T) {
	f, ev, b := newAudit(t, policyWith("Metadata"))
	conflict := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		LogResponseObject(r.Context(), []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure",`+
			`"message":"widgets \"w1\" already exists","reason":"AlreadyExists","code":409}`))
		w.WriteHeader(http.StatusConflict)
	})
	serve(t, chain(conflict, ev, b, alice), "POST", "/apis/example.com/v1/namespaces/ns1/widgets", managed)
	evs := events(t, f.LogPath)
	s := evs[len(evs)-1].ResponseStatus
	if s == nil || s.Code != 409 || s.Reason != "AlreadyExists" || s.Message != `widgets "w1" already exists` || s.Status != "Failure" {
		t.Errorf("responseStatus %+v", s)
	}
	if evs[len(evs)-1].ResponseObject != nil {
		t.Errorf("responseObject at level Metadata")
	}
}

// TestNoAuditContext checks that handlers may log bodies when the chain
// audits nothing.
func TestNoAuditContext(t *testing.T) {
	LogRequestObject(t.Context(), widgets, "", []byte(managed))
	LogResponseObject(t.Context(), []byte(managed))
}

func TestRequestPatchByLevel(t *testing.T) {
	tests := map[string]struct {
		level, contentType, body, want string
	}{
		"merge patch":                 {"Request", "application/merge-patch+json", `{"spec":{"size":4}}`, `{"spec":{"size":4}}`},
		"apply as JSON":               {"RequestResponse", "application/apply-patch+yaml", "spec:\n  size: 4\n", `{"spec":{"size":4}}`},
		"not JSON is left out":        {"Request", "application/json-patch+json", `[{"op":`, ""},
		"at Metadata, no body logged": {"Metadata", "application/merge-patch+json", `{"spec":{"size":4}}`, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f, ev, b := newAudit(t, policyWith(tc.level))
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				LogRequestPatch(r.Context(), body, r.Header.Get("Content-Type") == "application/apply-patch+yaml")
			})
			serveWith(t, chain(h, ev, b, alice), "PATCH", "/apis/example.com/v1/namespaces/ns1/widgets/w1", tc.contentType, tc.body)
			evs := events(t, f.LogPath)
			got := ""
			if o := evs[len(evs)-1].RequestObject; o != nil {
				got = string(o.Raw)
			}
			if got != tc.want {
				t.Errorf("requestObject %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResponseStatus(t *testing.T) {
	for _, level := range []string{"Metadata", "RequestResponse"} {
		t.Run(level, func(t *testing.T) {
			f, ev, b := newAudit(t, policyWith(level))
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
					Reason: metav1.StatusReasonNotFound, Message: `widgets "w1" not found`, Code: 404}
				LogResponseStatus(r.Context(), &st)
				w.WriteHeader(http.StatusNotFound)
			})
			serve(t, chain(h, ev, b, alice), "GET", "/apis/example.com/v1/namespaces/ns1/widgets/w1", "")
			evs := events(t, f.LogPath)
			e := evs[len(evs)-1]
			if s := e.ResponseStatus; s == nil || s.Code != 404 || s.Reason != "NotFound" || s.Message != `widgets "w1" not found` {
				t.Errorf("responseStatus %+v", s)
			}
			if got, want := e.ResponseObject != nil, level == "RequestResponse"; got != want {
				t.Fatalf("responseObject logged %v, want %v", got, want)
			}
			if e.ResponseObject != nil && !strings.Contains(string(e.ResponseObject.Raw), `"kind":"Status"`) {
				t.Errorf("responseObject %s: want the Status", e.ResponseObject.Raw)
			}
		})
	}
}

// TestAuditOff checks that handlers may log when the chain has an audit
// context but no audit filter initialized it, as when audit is off.
func TestAuditOff(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if levelOf(ctx) != "" {
			t.Errorf("level %q with audit off", levelOf(ctx))
		}
		LogRequestObject(ctx, widgets, "", []byte(managed))
		LogRequestPatch(ctx, []byte(managed), false)
		LogResponseObject(ctx, []byte(managed))
		LogResponseStatus(ctx, &metav1.Status{Code: 404})
	})
	serve(t, filters.WithAuditInit(h), "POST", "/apis/example.com/v1/namespaces/ns1/widgets", managed)
}
