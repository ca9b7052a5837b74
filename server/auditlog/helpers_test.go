package auditlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
)

// policyWith is a Policy whose one rule audits everything at level.
func policyWith(level string) string {
	return "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: " + level + "\n"
}

// newAudit writes policy to a file and returns the Flags naming it and a
// log in the test's directory, and what New makes of them.
func newAudit(t *testing.T, policy string) (Flags, audit.PolicyRuleEvaluator, audit.Backend) {
	t.Helper()
	dir := t.TempDir()
	f := Flags{PolicyFile: filepath.Join(dir, "policy.yaml"), LogPath: filepath.Join(dir, "log", "audit.log"), MaxSize: 100}
	if err := os.WriteFile(f.PolicyFile, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	ev, b, err := New(f)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(b.Shutdown)
	return f, ev, b
}

// chain wraps h in the library filters that make audit events, in
// kube-apiserver's order, with u as the authenticated user.
func chain(h http.Handler, ev audit.PolicyRuleEvaluator, b audit.Backend, u user.Info) http.Handler {
	longRunning := genericfilters.BasicLongRunningRequestCheck(sets.NewString("watch"), sets.NewString())
	h = filters.WithAudit(h, b, ev, longRunning)
	h = withUser(h, u)
	h = filters.WithRequestInfo(h, &request.RequestInfoFactory{
		APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api"),
	})
	h = filters.WithRequestReceivedTimestamp(h)
	return filters.WithAuditInit(h)
}

func withUser(h http.Handler, u user.Info) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), u)))
	})
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"devs", "system:authenticated"}}

// serve sends one request to h, served on loopback over HTTP/1.1 as a
// client would (a recorder is no http.Flusher once audit wraps it), and
// returns the answer with its body read.
func serve(t *testing.T, h http.Handler, method, target, body string) *http.Response {
	t.Helper()
	return serveWith(t, h, method, target, "", body)
}

// serveWith is serve with a Content-Type ("" sends none).
func serveWith(t *testing.T, h http.Handler, method, target, contentType, body string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp
}

// events reads the JSON lines of the log at path, failing on any line
// that is not one audit.k8s.io/v1 Event.
func events(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e auditv1.Event
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if e.APIVersion != "audit.k8s.io/v1" || e.Kind != "Event" {
			t.Fatalf("line %q: want an audit.k8s.io/v1 Event", sc.Text())
		}
		out = append(out, e)
	}
	return out
}

func stages(evs []auditv1.Event) []string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Stage))
	}
	return s
}

// statusCodecs encode the Status the library filters answer with.
func statusCodecs() runtime.NegotiatedSerializer {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	metav1.AddToGroupVersion(s, metav1.Unversioned)
	return serializer.NewCodecFactory(s).WithoutConversion()
}
