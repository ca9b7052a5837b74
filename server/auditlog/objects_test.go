package auditlog

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
