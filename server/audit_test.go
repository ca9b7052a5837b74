package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/specd-io/specd/server/auditlog"
	"github.com/specd-io/specd/server/filters"
)

// audited serves a seeded test server behind the request chain, audited
// at level, as the user system:unsecured; events reads what it logged.
func audited(t *testing.T, level string) (h http.Handler, events func() []auditv1.Event) {
	t.Helper()
	dir := t.TempDir()
	f := auditlog.Flags{PolicyFile: filepath.Join(dir, "policy.yaml"), LogPath: filepath.Join(dir, "audit.log")}
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: " + level + "\n"
	if err := os.WriteFile(f.PolicyFile, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	p, b, err := auditlog.New(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	h = filters.Wrap(newTestServer(t, seeded(t)), filters.Config{Insecure: true, AuditPolicy: p, AuditBackend: b})
	return h, func() []auditv1.Event { return readEvents(t, f.LogPath) }
}

func readEvents(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %s: %v", sc.Bytes(), err)
		}
		out = append(out, e)
	}
	return out
}

// last is the ResponseComplete event of the one request served.
func last(t *testing.T, evs []auditv1.Event) auditv1.Event {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Stage != auditv1.StageResponseComplete {
		t.Fatalf("events %+v: want one ending in ResponseComplete", evs)
	}
	return evs[len(evs)-1]
}

func TestAuditCreateByLevel(t *testing.T) {
	w2 := strings.Replace(widgetW1, `"w1"`, `"w2"`, 1)
	for _, level := range []string{"Metadata", "Request", "RequestResponse"} {
		t.Run(level, func(t *testing.T) {
			h, events := audited(t, level)
			w := serve(t, h, request{method: "POST", path: widgetsPath, body: w2})
			if w.Code != http.StatusCreated {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			e := last(t, events())
			ref := e.ObjectRef
			if e.Verb != "create" || ref == nil || ref.Name != "w2" || ref.Namespace != "default" || ref.Resource != "widgets" || ref.APIGroup != "shop.example.com" || ref.APIVersion != "v1" {
				t.Errorf("verb %q objectRef %+v", e.Verb, ref)
			}
			if e.User.Username != "system:unsecured" || e.ResponseStatus == nil || e.ResponseStatus.Code != 201 {
				t.Errorf("user %q responseStatus %+v", e.User.Username, e.ResponseStatus)
			}
			wantReq, wantResp := level != "Metadata", level == "RequestResponse"
			if (e.RequestObject != nil) != wantReq || (e.ResponseObject != nil) != wantResp {
				t.Fatalf("requestObject %v responseObject %v, want %v %v", e.RequestObject != nil, e.ResponseObject != nil, wantReq, wantResp)
			}
			if wantReq && string(e.RequestObject.Raw) != w2 {
				t.Errorf("requestObject %s, want the body sent", e.RequestObject.Raw)
			}
			if wantResp && !bytes.Equal(e.ResponseObject.Raw, w.Body.Bytes()) {
				t.Errorf("responseObject %s, want the answer %s", e.ResponseObject.Raw, w.Body)
			}
		})
	}
}

func TestAuditErrorStatus(t *testing.T) {
	h, events := audited(t, "RequestResponse")
	w := serve(t, h, request{method: "POST", path: widgetsPath, body: widgetW1})
	if w.Code != http.StatusConflict {
		t.Fatalf("code %d: %s", w.Code, w.Body)
	}
	e := last(t, events())
	s := e.ResponseStatus
	if s == nil || s.Code != 409 || s.Reason != "AlreadyExists" || s.Status != "Failure" || !strings.Contains(s.Message, `"w1" already exists`) {
		t.Errorf("responseStatus %+v", s)
	}
	if e.ResponseObject == nil || !strings.Contains(string(e.ResponseObject.Raw), `"reason":"AlreadyExists"`) {
		t.Errorf("responseObject %v: want the Status", e.ResponseObject)
	}
}

func TestAuditNotAcceptable(t *testing.T) {
	h, events := audited(t, "Metadata")
	w := serve(t, h, request{path: widgetsPath + "/w1", headers: map[string]string{"Accept": "text/html"}})
	if w.Code != http.StatusNotAcceptable {
		t.Fatalf("code %d", w.Code)
	}
	if s := last(t, events()).ResponseStatus; s == nil || s.Code != 406 || s.Reason != "NotAcceptable" || s.Message == "" {
		t.Errorf("responseStatus %+v", s)
	}
}

func TestAuditPatchAndDelete(t *testing.T) {
	h, events := audited(t, "Request")
	patch := "metadata:\n  labels:\n    tier: silver\n"
	w := serve(t, h, request{method: "PATCH", path: widgetsPath + "/w1?fieldManager=me", body: patch,
		headers: map[string]string{"Content-Type": "application/apply-patch+yaml"}})
	if w.Code != http.StatusOK {
		t.Fatalf("patch: code %d: %s", w.Code, w.Body)
	}
	if e := last(t, events()); e.Verb != "patch" || e.RequestObject == nil || string(e.RequestObject.Raw) != `{"metadata":{"labels":{"tier":"silver"}}}` {
		t.Errorf("patch: verb %q requestObject %v", e.Verb, e.RequestObject)
	}
	w = serve(t, h, request{method: "DELETE", path: widgetsPath + "/w1", body: "propagationPolicy: Orphan\n",
		headers: map[string]string{"Content-Type": "application/yaml"}})
	if w.Code != http.StatusOK {
		t.Fatalf("delete: code %d: %s", w.Code, w.Body)
	}
	e := last(t, events())
	if e.Verb != "delete" || e.ObjectRef == nil || e.ObjectRef.Name != "w1" || e.RequestObject == nil || string(e.RequestObject.Raw) != `{"propagationPolicy":"Orphan"}` {
		t.Errorf("delete: verb %q objectRef %+v requestObject %v", e.Verb, e.ObjectRef, e.RequestObject)
	}
}
