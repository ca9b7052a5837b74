package auditlog

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/sjson"
	"k8s.io/apimachinery/pkg/runtime/schema"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// widget is indented on purpose: each event must still be one line.
const widget = `{
  "apiVersion": "example.com/v1", "kind": "Widget",
  "metadata": {"name": "w1", "namespace": "ns1"},
  "spec": {"size": 3}
}`

// create is a handler that stores nothing: it answers the body it got
// with a uid, feeding both to the audit event as specd's handlers do.
func create(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	LogRequestObject(r.Context(), widgets, "", body)
	out, _ := sjson.SetBytes(body, "metadata.uid", "uid-1")
	LogResponseObject(r.Context(), out)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(out)
}

func TestCreateByLevel(t *testing.T) {
	tests := map[string]struct {
		lines             int
		request, response bool
	}{
		"None":            {},
		"Metadata":        {lines: 2},
		"Request":         {lines: 2, request: true},
		"RequestResponse": {lines: 2, request: true, response: true},
	}
	for level, tc := range tests {
		t.Run(level, func(t *testing.T) {
			f, ev, b := newAudit(t, policyWith(level))
			w := serve(t, chain(http.HandlerFunc(create), ev, b, alice), "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget)
			if w.StatusCode != http.StatusCreated {
				t.Fatalf("code %d", w.StatusCode)
			}
			evs := events(t, f.LogPath)
			if len(evs) != tc.lines {
				t.Fatalf("%d lines, want %d: %v", len(evs), tc.lines, stages(evs))
			}
			if tc.lines == 0 {
				return
			}
			if got, want := stages(evs), []string{"RequestReceived", "ResponseComplete"}; !cmp.Equal(got, want) {
				t.Errorf("stages %v, want %v", got, want)
			}
			last := evs[1]
			checkCreate(t, last, w.Header.Get("Audit-Id"), level)
			if (last.RequestObject != nil) != tc.request || (last.ResponseObject != nil) != tc.response {
				t.Errorf("requestObject %v, responseObject %v; want %v, %v", last.RequestObject != nil, last.ResponseObject != nil, tc.request, tc.response)
			}
			if tc.response && !strings.Contains(string(last.ResponseObject.Raw), `"uid":"uid-1"`) {
				t.Errorf("responseObject %s: want the answer", last.ResponseObject.Raw)
			}
			if tc.request && strings.Contains(string(last.RequestObject.Raw), "uid-1") {
				t.Errorf("requestObject %s: want the request's body", last.RequestObject.Raw)
			}
		})
	}
}

// checkCreate checks what every level logs of the create of w1.
func checkCreate(t *testing.T, e auditv1.Event, auditID, level string) {
	t.Helper()
	if string(e.Level) != level || string(e.AuditID) != auditID || auditID == "" {
		t.Errorf("level %q auditID %q, want %q and the Audit-Id header %q", e.Level, e.AuditID, level, auditID)
	}
	if e.User.Username != "alice" || e.User.UID != "u-1" || !cmp.Equal(e.User.Groups, alice.Groups) {
		t.Errorf("user %+v", e.User)
	}
	if e.Verb != "create" || e.RequestURI != "/apis/example.com/v1/namespaces/ns1/widgets" {
		t.Errorf("verb %q requestURI %q", e.Verb, e.RequestURI)
	}
	want := &auditv1.ObjectReference{Resource: "widgets", Namespace: "ns1", Name: "w1", APIGroup: "example.com", APIVersion: "v1"}
	if diff := cmp.Diff(want, e.ObjectRef); diff != "" {
		t.Errorf("objectRef (-want +got):\n%s", diff)
	}
	if e.ResponseStatus == nil || e.ResponseStatus.Code != http.StatusCreated {
		t.Errorf("responseStatus %+v, want code 201", e.ResponseStatus)
	}
	checkLatency(t, e)
}

// checkLatency checks the two timestamps a request's latency is read from.
func checkLatency(t *testing.T, e auditv1.Event) {
	t.Helper()
	if e.RequestReceivedTimestamp.IsZero() || e.StageTimestamp.Before(&e.RequestReceivedTimestamp) {
		t.Errorf("requestReceivedTimestamp %v, stageTimestamp %v: want a latency of 0 or more", e.RequestReceivedTimestamp, e.StageTimestamp)
	}
}

func TestWatchLogsResponseStarted(t *testing.T) {
	f, ev, b := newAudit(t, policyWith("Metadata"))
	var atStart []string
	watch := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		atStart = stages(events(t, f.LogPath))
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{}}` + "\n"))
	})
	serve(t, chain(watch, ev, b, alice), "GET", "/apis/example.com/v1/namespaces/ns1/widgets?watch=true", "")
	if want := []string{"RequestReceived", "ResponseStarted"}; !cmp.Equal(atStart, want) {
		t.Errorf("stages while the watch runs %v, want %v", atStart, want)
	}
	evs := events(t, f.LogPath)
	if got, want := stages(evs), []string{"RequestReceived", "ResponseStarted", "ResponseComplete"}; !cmp.Equal(got, want) {
		t.Fatalf("stages %v, want %v", got, want)
	}
	for _, e := range evs[1:] {
		if e.Verb != "watch" || e.ObjectRef == nil || e.ObjectRef.Resource != "widgets" || e.ResponseStatus.Code != 200 {
			t.Errorf("%s: verb %q objectRef %+v status %+v", e.Stage, e.Verb, e.ObjectRef, e.ResponseStatus)
		}
		checkLatency(t, e)
	}
}

func TestDeniedRequest(t *testing.T) {
	f, ev, b := newAudit(t, policyWith("Metadata"))
	deny := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionDeny, "no RBAC rule", nil
	})
	reached := false
	h := filters.WithAuthorization(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }), deny, statusCodecs())
	w := serve(t, chain(h, ev, b, alice), "DELETE", "/apis/example.com/v1/namespaces/ns1/widgets/w1", "")
	if w.StatusCode != http.StatusForbidden || reached {
		t.Fatalf("code %d, handler reached %v: want 403 before the handler", w.StatusCode, reached)
	}
	evs := events(t, f.LogPath)
	if len(evs) != 2 {
		t.Fatalf("stages %v", stages(evs))
	}
	e := evs[1]
	if e.Verb != "delete" || e.ObjectRef == nil || e.ObjectRef.Name != "w1" {
		t.Errorf("verb %q objectRef %+v", e.Verb, e.ObjectRef)
	}
	if s := e.ResponseStatus; s == nil || s.Code != 403 || s.Reason != "Forbidden" || !strings.Contains(s.Message, `User "alice" cannot delete resource "widgets"`) {
		t.Errorf("responseStatus %+v", s)
	}
	if e.Annotations["authorization.k8s.io/decision"] != "forbid" || e.Annotations["authorization.k8s.io/reason"] != "no RBAC rule" {
		t.Errorf("annotations %v", e.Annotations)
	}
}
