package auth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// auditWait bounds the wait for an event: specd writes a request's last
// event after its answer is sent.
const auditWait = 15 * time.Second

// auditPolicy logs widgets with both bodies, everything else at Metadata,
// and keeps the readiness probes out.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz", "/livez", "/healthz"]
- level: RequestResponse
  resources:
  - group: shop.example.com
    resources: ["widgets"]
- level: Metadata
`

// auditTokens are users of --token-auth-file: mallory has no binding.
const auditTokens = `mallory-token,mallory,u-2,"devs"
`

const auditWidget = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"audited","namespace":"default"},"spec":{"color":"red","size":3}}`

// auditedSpecd is specd over TLS with audit on, its log under dir, and
// the rotation flags given.
type auditedSpecd struct {
	*harness.Specd
	log string
}

func startAudited(t *testing.T, policy, tokens string) auditedSpecd {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "audit", "audit.log")
	args := []string{
		"--audit-policy-file", harness.WriteFile(t, dir, "policy.yaml", policy),
		"--audit-log-path", log,
		"--audit-log-maxsize", "1", "--audit-log-maxbackup", "2", "--audit-log-maxage", "1", "--audit-log-format", "json",
		"--token-auth-file", harness.WriteFile(t, dir, "tokens.csv", tokens),
	}
	return auditedSpecd{Specd: harness.StartSpecd(t, harness.SpecdOptions{Secure: true, Args: args}), log: log}
}

// TestAudit: specd's audit log has kube-apiserver's events for a create,
// a request RBAC denies, a bad credential and a watch.
func TestAudit(t *testing.T) {
	t.Parallel()
	s := startAudited(t, auditPolicy, auditTokens)
	if fi, err := os.Stat(s.log); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit log: %v, mode %v; want 0600", err, fi)
	}
	t.Run("create", func(t *testing.T) { auditCreate(t, s) })
	t.Run("denied", func(t *testing.T) { auditDenied(t, s) })
	t.Run("unauthorized", func(t *testing.T) { auditUnauthorized(t, s) })
	t.Run("watch", func(t *testing.T) { auditWatch(t, s) })
}

func auditCreate(t *testing.T, s auditedSpecd) {
	resp := testhttp.Do(t, s.Client, testhttp.Request{Method: http.MethodPost, URL: s.URL + "/apis/shop.example.com/v1/namespaces/default/widgets", ContentType: "application/json", Body: auditWidget})
	if resp.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.Code, resp.Body)
	}
	evs := s.waitEvents(t, resp, auditv1.StageResponseComplete)
	if got := eventStages(evs); !slices.Equal(got, []string{"RequestReceived", "ResponseComplete"}) {
		t.Errorf("stages %v", got)
	}
	e := evs[len(evs)-1]
	want := auditv1.ObjectReference{Resource: "widgets", Namespace: "default", Name: "audited", APIGroup: "shop.example.com", APIVersion: "v1"}
	if e.ObjectRef == nil || *e.ObjectRef != want {
		t.Errorf("objectRef %+v, want %+v", e.ObjectRef, want)
	}
	if e.Level != auditv1.LevelRequestResponse || e.Verb != "create" || e.User.Username != "specd-admin" || !slices.Contains(e.User.Groups, "system:masters") {
		t.Errorf("level %q verb %q user %+v", e.Level, e.Verb, e.User)
	}
	if e.ResponseStatus == nil || e.ResponseStatus.Code != 201 {
		t.Errorf("responseStatus %+v", e.ResponseStatus)
	}
	if e.RequestObject == nil || !jsonEqual(e.RequestObject.Raw, []byte(auditWidget)) {
		t.Errorf("requestObject %v, want the body sent", e.RequestObject)
	}
	if e.ResponseObject == nil || !jsonEqual(e.ResponseObject.Raw, []byte(resp.Body)) {
		t.Errorf("responseObject %v, want the answer %s", e.ResponseObject, resp.Body)
	}
	if e.RequestReceivedTimestamp.IsZero() || e.StageTimestamp.Before(&e.RequestReceivedTimestamp) {
		t.Errorf("timestamps %v %v", e.RequestReceivedTimestamp, e.StageTimestamp)
	}
}

func auditDenied(t *testing.T, s auditedSpecd) {
	resp := testhttp.Do(t, insecureClient(t, s.Specd), testhttp.Request{Method: http.MethodDelete, URL: s.URL + "/apis/shop.example.com/v1/namespaces/default/widgets/audited", ContentType: "application/json", Token: "mallory-token"})
	if resp.Code != http.StatusForbidden {
		t.Fatalf("delete as mallory: %d %s", resp.Code, resp.Body)
	}
	evs := s.waitEvents(t, resp, auditv1.StageResponseComplete)
	e := evs[len(evs)-1]
	if e.Verb != "delete" || e.User.Username != "mallory" || e.ObjectRef == nil || e.ObjectRef.Name != "audited" {
		t.Errorf("verb %q user %q objectRef %+v", e.Verb, e.User.Username, e.ObjectRef)
	}
	if st := e.ResponseStatus; st == nil || st.Code != 403 || st.Reason != "Forbidden" || !strings.Contains(st.Message, `User "mallory" cannot delete resource "widgets"`) {
		t.Errorf("responseStatus %+v", st)
	}
	if e.Annotations["authorization.k8s.io/decision"] != "forbid" {
		t.Errorf("annotations %v", e.Annotations)
	}
}

func auditUnauthorized(t *testing.T, s auditedSpecd) {
	resp := testhttp.Do(t, insecureClient(t, s.Specd), testhttp.Request{URL: s.URL + "/apis/shop.example.com/v1/namespaces/default/widgets", ContentType: "application/json", Token: "no-such-token"})
	if resp.Code != http.StatusUnauthorized {
		t.Fatalf("bad token: %d %s", resp.Code, resp.Body)
	}
	evs := s.waitEvents(t, resp, auditv1.StageResponseStarted)
	e := evs[len(evs)-1]
	if e.User.Username != "" || e.ResponseStatus == nil || e.ResponseStatus.Code != 401 {
		t.Errorf("user %+v responseStatus %+v", e.User, e.ResponseStatus)
	}
}

func auditWatch(t *testing.T, s auditedSpecd) {
	client := *s.Client
	client.Timeout = 0
	// The watch ends itself after a second, then its last event is written.
	resp := testhttp.Do(t, &client, testhttp.Request{URL: s.URL + "/apis/shop.example.com/v1/namespaces/default/widgets?watch=true&timeoutSeconds=1", ContentType: "application/json"})
	if resp.Code != http.StatusOK {
		t.Fatalf("watch: %d", resp.Code)
	}
	evs := s.waitEvents(t, resp, auditv1.StageResponseComplete)
	if got := eventStages(evs); !slices.Equal(got, []string{"RequestReceived", "ResponseStarted", "ResponseComplete"}) {
		t.Errorf("stages %v", got)
	}
	for _, e := range evs {
		if e.Verb != "watch" || e.ObjectRef == nil || e.ObjectRef.Resource != "widgets" {
			t.Errorf("%s: verb %q objectRef %+v", e.Stage, e.Verb, e.ObjectRef)
		}
	}
	if e := evs[len(evs)-1]; e.ResponseStatus == nil || e.ResponseStatus.Code != 200 || e.ResponseObject != nil {
		t.Errorf("responseStatus %+v responseObject %v: want 200 and no body of a watch", e.ResponseStatus, e.ResponseObject)
	}
}

// insecureClient reaches specd over TLS, trusting its CA, with no client
// certificate: it authenticates with a bearer token or not at all.
func insecureClient(t *testing.T, s *harness.Specd) *http.Client {
	t.Helper()
	cfg := *s.Rest
	cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = nil, nil
	cfg.TLSClientConfig.CertFile, cfg.TLSClientConfig.KeyFile = "", ""
	cfg.BearerToken, cfg.BearerTokenFile = "", ""
	c, err := rest.HTTPClientFor(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitEvents waits until the log has the event of the request resp
// answers (by its Audit-Id header) at stage, and returns the request's
// events in order.
func (s auditedSpecd) waitEvents(t *testing.T, resp testhttp.Result, stage auditv1.Stage) []auditv1.Event {
	t.Helper()
	id := resp.Header.Get("Audit-Id")
	if id == "" {
		t.Fatal("no Audit-Id header")
	}
	deadline := time.Now().Add(auditWait)
	for {
		evs, err := readAuditLog(s.log, id)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(evs); n > 0 && evs[n-1].Stage == stage {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event of audit ID %s after %s; its events: %v", stage, id, auditWait, eventStages(evs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readAuditLog reads the events of one audit ID; every line must be one
// audit.k8s.io/v1 Event with no field unknown to it.
func readAuditLog(path, auditID string) ([]auditv1.Event, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e auditv1.Event
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("audit log line %s: %w", sc.Bytes(), err)
		}
		if e.APIVersion != "audit.k8s.io/v1" || e.Kind != "Event" {
			return nil, fmt.Errorf("audit log line %s: not an audit.k8s.io/v1 Event", sc.Bytes())
		}
		if string(e.AuditID) == auditID {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func eventStages(evs []auditv1.Event) []string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Stage))
	}
	return s
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return harness.Compact(x) == harness.Compact(y)
}

// TestAuditDoc: the policy of docs/security.md starts specd, and the
// create of a Ship it shows is the event specd logs for it, but for the
// values that change each run (ID, times, client).
func TestAuditDoc(t *testing.T) {
	t.Parallel()
	policy, event := auditDocExamples(t)
	s := startAudited(t, policy, `alice-token,alice,u-1,"devs"`+"\n")
	grantShips(t, s.Specd, "alice")
	var want map[string]any
	if err := json.Unmarshal([]byte(event), &want); err != nil {
		t.Fatalf("the doc's event: %v", err)
	}
	for _, k := range []string{"auditID", "userAgent", "sourceIPs", "requestReceivedTimestamp", "stageTimestamp"} {
		want[k] = harness.AnyValue
	}
	sent, err := json.Marshal(want["requestObject"])
	if err != nil {
		t.Fatal(err)
	}
	resp := testhttp.Do(t, insecureClient(t, s.Specd), testhttp.Request{Method: http.MethodPost, URL: s.URL + "/apis/fleet.example.com/v1/namespaces/default/ships", ContentType: "application/json", Token: "alice-token", Body: string(sent)})
	if resp.Code != http.StatusCreated {
		t.Fatalf("create as alice: %d %s", resp.Code, resp.Body)
	}
	evs := s.waitEvents(t, resp, auditv1.StageResponseComplete)
	if len(evs) != 1 {
		t.Errorf("stages %v: the doc's policy omits RequestReceived", eventStages(evs))
	}
	got, err := auditRawEvent(s.log, resp.Header.Get("Audit-Id"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range harness.JSONSubset(want, got, "") {
		t.Errorf("the doc's event: %s", d)
	}
	if _, ok := got.(map[string]any)["responseObject"]; ok {
		t.Errorf("a responseObject at level Request: %s", harness.Compact(got))
	}
}

// auditDocExamples are the Policy and the Event that
// docs/security.md shows.
func auditDocExamples(t *testing.T) (policy, event string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := harness.Fences(string(md))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		text := strings.Join(f.Lines, "\n")
		switch {
		case f.Info == "yaml" && strings.Contains(text, "kind: Policy"):
			policy = text + "\n"
		case f.Info == "json" && strings.Contains(text, `"kind":"Event"`):
			event = text
		}
	}
	if policy == "" || event == "" {
		t.Fatal("docs/security.md: want a yaml block with a Policy and a json block with an Event")
	}
	return policy, event
}

// grantShips lets user create ships in default, as the admin.
func grantShips(t *testing.T, s *harness.Specd, user string) {
	t.Helper()
	rbac := s.URL + "/apis/rbac.authorization.k8s.io/v1/namespaces/default/"
	role := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"ship-writer"},` +
		`"rules":[{"apiGroups":["fleet.example.com"],"resources":["ships"],"verbs":["create"]}]}`
	binding := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"ship-writer"},` +
		`"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"` + user + `"}],` +
		`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"ship-writer"}}`
	for path, body := range map[string]string{"roles": role, "rolebindings": binding} {
		if resp := testhttp.Do(t, s.Client, testhttp.Request{Method: http.MethodPost, URL: rbac + path, ContentType: "application/json", Body: body}); resp.Code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", path, resp.Code, resp.Body)
		}
	}
}

// auditRawEvent is the last event of an audit ID as decoded JSON.
func auditRawEvent(path, auditID string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var last any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("audit log line %s: %w", line, err)
		}
		if e["auditID"] == auditID {
			last = e
		}
	}
	if last == nil {
		return nil, fmt.Errorf("no event of audit ID %s", auditID)
	}
	return last, nil
}
