package loadtest

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func startFake(t *testing.T, f *fakeAPI) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func runJSON(t *testing.T, args ...string) (jsonReport, int, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := command(t.Context(), append(args, "--output", "json"), &stdout, &stderr)
	var rep jsonReport
	if stdout.Len() > 0 {
		if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
			t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout.String())
		}
	}
	return rep, code, stderr.String()
}

func TestCommandAgainstFakeAPI(t *testing.T) {
	fake := newFakeAPI()
	fake.conflictEvery = 10
	url := startFake(t, fake)
	rep, code, stderr := runJSON(t, "--server", url, "--objects", "200", "--concurrency", "8",
		"--page-size", "30", "--pid", fmt.Sprint(os.Getpid()))
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	want := map[string]struct{ ops, items, retries int }{
		"create":     {200, 0, 0},
		"get":        {200, 0, 0},
		"list":       {3, 3 * 200, 0},
		"list-paged": {3 * 7, 3 * 200, 0}, // 200 items in pages of 30
		"update":     {200, 0, 20},        // every 10th object meets one conflict
		"delete":     {200, 0, 0},
	}
	if len(rep.Phases) != len(want) {
		t.Fatalf("got %d phases, want %d", len(rep.Phases), len(want))
	}
	for _, p := range rep.Phases {
		w := want[p.Name]
		if p.Ops != w.ops || p.Items != w.items || p.Retries != w.retries || p.ErrorCount != 0 {
			t.Errorf("%s: ops %d items %d retries %d errors %v; want ops %d items %d retries %d, no errors",
				p.Name, p.Ops, p.Items, p.Retries, p.Errors, w.ops, w.items, w.retries)
		}
		if p.P50Ms <= 0 || p.P50Ms > p.P90Ms || p.P90Ms > p.P99Ms || p.P99Ms > p.MaxMs || p.OpsPerSec <= 0 {
			t.Errorf("%s: latencies %v/%v/%v/%v ms at %v ops/s are not ordered and positive", p.Name, p.P50Ms, p.P90Ms, p.P99Ms, p.MaxMs, p.OpsPerSec)
		}
		if p.RSSBeforeBytes == nil || p.RSSAfterBytes == nil {
			t.Errorf("%s: RSS unknown with --pid", p.Name)
		}
		if p.CPUPerOpMs == nil || *p.CPUPerOpMs < 0 {
			t.Errorf("%s: server CPU per operation %v with --pid, want a value", p.Name, p.CPUPerOpMs)
		}
	}
	if rep.ServerPID == nil || *rep.ServerPID != os.Getpid() || rep.RSSGrowthPer10kBytes == nil {
		t.Errorf("server pid %v, growth %v", rep.ServerPID, rep.RSSGrowthPer10kBytes)
	}
	if rep.ObjectBytes < 1600 || rep.ObjectBytes > 1800 || rep.Interrupted {
		t.Errorf("object bytes %d, interrupted %v", rep.ObjectBytes, rep.Interrupted)
	}
	if len(fake.objs) != 0 {
		t.Errorf("%d objects left after delete", len(fake.objs))
	}
	// updates: 200 GET + 20 retried GET; PUT 220; plus get phase and preflight
	if got := fake.requests["PUT"]; got != 220 {
		t.Errorf("server saw %d PUTs, want 220", got)
	}
}

func TestCommandFindsPIDAndPrintsTable(t *testing.T) {
	url := startFake(t, newFakeAPI())
	var stdout, stderr strings.Builder
	code := command(t.Context(), []string{"--server", url, "--objects", "50", "--phases", "create,list-paged,delete", "--page-size", "20"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"PHASE", "P99", "RSS BEFORE", "create", "list-paged", "delete", "list-paged: 150 items", "per 10,000 objects"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The fake listens on loopback in this process, so the lookup finds us.
	if wantPID := fmt.Sprintf("(pid %d)", os.Getpid()); !strings.Contains(out, wantPID) && !strings.Contains(stderr.String(), "RSS unknown") {
		t.Errorf("no %s in the table and no reason in stderr:\n%s\n%s", wantPID, out, stderr.String())
	}
}

func TestCommandReportsErrorsByCode(t *testing.T) {
	fake := newFakeAPI()
	url := startFake(t, fake)
	// Objects that already exist: create gets 409 for them, and the lists
	// see more objects than this run made.
	runJSON(t, "--server", url, "--objects", "10", "--phases", "create")
	rep, code, _ := runJSON(t, "--server", url, "--objects", "20", "--phases", "delete,create,get,list")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	byName := map[string]jsonPhase{}
	for _, p := range rep.Phases {
		byName[p.Name] = p
	}
	if got := byName["delete"].Errors["404"]; got != 10 {
		t.Errorf("delete: %d 404s, want 10 (%v)", got, byName["delete"].Errors)
	}
	if byName["create"].ErrorCount != 0 || byName["list"].ErrorCount != 0 {
		t.Errorf("create %v, list %v: want no errors after the delete", byName["create"].Errors, byName["list"].Errors)
	}
	rep, _, _ = runJSON(t, "--server", url, "--objects", "25", "--phases", "create,list")
	if got := rep.Phases[0].Errors["409"]; got != 20 {
		t.Errorf("create: %d 409s, want 20 (%v)", got, rep.Phases[0].Errors)
	}
	if got := rep.Phases[1].Errors[errCountMismatch]; got != 0 {
		t.Errorf("list: %d count mismatches, want 0 (25 objects exist)", got)
	}
	rep, _, _ = runJSON(t, "--server", url, "--objects", "5", "--phases", "list-paged", "--list-repeat", "1")
	if got := rep.Phases[0].Errors[errCountMismatch]; got != 1 {
		t.Errorf("list-paged of 25 objects when 5 are expected: %d count mismatches, want 1", got)
	}
}

func TestCommandStopsAtDeadline(t *testing.T) {
	fake := newFakeAPI()
	fake.delay = 50 * time.Millisecond
	url := startFake(t, fake)
	start := time.Now()
	rep, code, _ := runJSON(t, "--server", url, "--objects", "100000", "--concurrency", "4", "--timeout", "300ms")
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("run took %v after a 300ms deadline", elapsed)
	}
	if code != 1 || !rep.Interrupted || len(rep.Phases) != 1 || !rep.Phases[0].Interrupted {
		t.Errorf("exit %d, report %+v: want exit 1 and an interrupted create", code, rep)
	}
	if n := rep.Phases[0].Ops; n == 0 || n >= 100000 || rep.Phases[0].ErrorCount != 0 {
		t.Errorf("create: %d ops, errors %v; want some, cut short, none failed", n, rep.Phases[0].Errors)
	}
}

func TestCommandRefusesUnservedResource(t *testing.T) {
	url := startFake(t, newFakeAPI())
	var stderr strings.Builder
	code := command(t.Context(), []string{"--server", url, "--resource", "widgets"}, &strings.Builder{}, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "HTTP 404") {
		t.Errorf("exit %d, stderr %q; want 1 and the 404", code, stderr.String())
	}
}

// TestCommandWithKubeconfig takes the host, the CA and a bearer token from a
// kubeconfig, as against a real kube-apiserver.
func TestCommandWithKubeconfig(t *testing.T) {
	fake := newFakeAPI()
	fake.token = "s3cret"
	srv := httptest.NewTLSServer(fake)
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	kubeconfig := filepath.Join(t.TempDir(), "config")
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, certificate-authority-data: %q}
users:
- name: test
  user: {token: %q}
contexts:
- name: test
  context: {cluster: test, user: test}
current-context: test
`, srv.URL, base64.StdEncoding.EncodeToString(ca), "s3cret")
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, code, stderr := runJSON(t, "--kubeconfig", kubeconfig, "--objects", "40", "--phases", "create,update,delete")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if rep.Server != srv.URL || len(rep.Phases) != 3 || rep.Phases[2].Ops != 40 {
		t.Errorf("server %s (want %s), phases %+v", rep.Server, srv.URL, rep.Phases)
	}

	// Without the kubeconfig the same server refuses the tool.
	_, code, stderr = runJSON(t, "--server", srv.URL, "--objects", "1")
	if code != 1 || !strings.Contains(stderr, "certificate") {
		t.Errorf("exit %d, stderr %q; want 1 and a certificate error", code, stderr)
	}
}

// TestListPagedChecks runs list-paged against servers that break the
// list conventions in one way each.
func TestListPagedChecks(t *testing.T) {
	tests := map[string]struct {
		body      string
		wantOps   int
		wantError string
	}{
		"conforming":       {`{"kind":"PayloadList","metadata":{},"items":[{},{}]}`, 1, ""},
		"limit ignored":    {`{"kind":"PayloadList","metadata":{},"items":[{},{},{}]}`, 1, errBadResponse},
		"not a list":       {`{"kind":"Status","code":200}`, 1, errBadResponse},
		"endless continue": {`{"kind":"PayloadList","metadata":{"continue":"x"},"items":[]}`, 2*(2/2+1) + 100, errBadResponse},
		"short walk":       {`{"kind":"PayloadList","metadata":{},"items":[{}]}`, 1, errCountMismatch},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			rep, _, stderr := runJSON(t, "--server", srv.URL, "--objects", "2", "--page-size", "2",
				"--phases", "list-paged", "--list-repeat", "1")
			if len(rep.Phases) != 1 {
				t.Fatalf("no phase ran; stderr:\n%s", stderr)
			}
			p := rep.Phases[0]
			wantErrors := 0
			if tc.wantError != "" {
				wantErrors = 1
			}
			if p.Ops != tc.wantOps || p.ErrorCount != wantErrors || (tc.wantError != "" && p.Errors[tc.wantError] != 1) {
				t.Errorf("ops %d errors %v; want ops %d and %q once", p.Ops, p.Errors, tc.wantOps, tc.wantError)
			}
		})
	}
}
