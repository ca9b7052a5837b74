package controlplane

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// childrenNamed returns the pids of the processes named name whose parent
// is ppid, read from /proc as pgrep -P ppid -x name does.
func childrenNamed(t *testing.T, ppid int, name string) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, stat := range stats {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 || s[open+1:end] != name {
			continue
		}
		if parent, _ := strconv.Atoi(fields[1]); parent == ppid {
			pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestPluginKilled: a plugin process killed in the middle of calls is
// restarted; the calls in flight are answered by their bindings' failure
// policy (Fail: a 500 naming the plugin; Ignore: written without it), and
// specd stays up and ready.
func TestPluginKilled(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: slowSchemas, Args: []string{"--plugins", buildSlow(t)}})
	client := &http.Client{Timeout: 60 * time.Second}

	// The first call starts the plugin: one child of specd.
	resp := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, "probes"), ContentType: "application/json", Body: slowObject("Probe", "p0", "")})
	if resp.Code != http.StatusCreated {
		t.Fatalf("first probe: %d %s", resp.Code, resp.Body)
	}
	pids := childrenNamed(t, s.Cmd.Process.Pid, "slow")
	if len(pids) != 1 {
		t.Fatalf("children of specd named slow: %v, want one", pids)
	}
	if got, want := harness.Path(harness.DecodeJSON(t, resp.Body), "spec", "defaultedBy"), fmt.Sprintf("slow/%d", pids[0]); got != want {
		t.Fatalf("defaultedBy %v, want %s: the child found is not the plugin", got, want)
	}

	// Two calls in flight (the plugin sleeps 5s in each), then the kill.
	type answer struct {
		kind string
		resp testhttp.Result
	}
	answers := make(chan answer, 2)
	for _, c := range []struct{ kind, plural string }{{"Probe", "probes"}, {"Sample", "samples"}} {
		go func() {
			// An error is an answer, not a test failure.
			r, err := testhttp.Send(t.Context(), client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, c.plural), ContentType: "application/json", Body: slowObject(c.kind, "inflight", "5s")})
			if err != nil {
				r.Body = err.Error()
			}
			answers <- answer{c.kind, r}
		}()
	}
	time.Sleep(time.Second)
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for range 2 {
		a := <-answers
		if took := time.Since(killed); took > 3*time.Second {
			t.Errorf("%s answered %s after the kill: the call waited for its timeout", a.kind, took)
		}
		switch a.kind {
		case "Probe": // Fail
			st := harness.CheckStatus(t, a.resp, http.StatusInternalServerError, metav1.StatusReasonInternalError)
			if !strings.Contains(st.Message, `failed calling plugin "slow" (default)`) {
				t.Errorf("Probe: message %q, want the plugin and the hook named", st.Message)
			}
		case "Sample": // Ignore
			if a.resp.Code != http.StatusCreated || harness.Path(harness.DecodeJSON(t, a.resp.Body), "spec", "defaultedBy") != nil {
				t.Errorf("Sample: %d %s, want 201 without the plugin's default", a.resp.Code, a.resp.Body)
			}
		}
	}

	// specd is up and ready; a new process serves the next call.
	if r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/readyz"}); r.Code != http.StatusOK {
		t.Errorf("/readyz after the kill: %d %s", r.Code, r.Body)
	}
	var defaultedBy any
	harness.Converge(t, "a new plugin process", func() (bool, string) {
		r := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, "probes"), ContentType: "application/json", Body: slowObject("Probe", fmt.Sprintf("p%d", time.Now().UnixNano()), "")})
		if r.Code != http.StatusCreated {
			return false, r.Body
		}
		defaultedBy = harness.Path(harness.DecodeJSON(t, r.Body), "spec", "defaultedBy")
		return true, ""
	})
	now := childrenNamed(t, s.Cmd.Process.Pid, "slow")
	if len(now) != 1 || now[0] == pids[0] || defaultedBy != fmt.Sprintf("slow/%d", now[0]) {
		t.Errorf("after the restart: children %v (killed %d), defaultedBy %v", now, pids[0], defaultedBy)
	}
	metrics := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/metrics"}).Body
	if !strings.Contains(metrics, `specd_plugin_restarts_total{plugin="slow"}`) ||
		!strings.Contains(metrics, `specd_plugin_admission_failures_total{hook="default",plugin="slow",policy="Fail"} 1`) ||
		!strings.Contains(metrics, `specd_plugin_admission_failures_total{hook="default",plugin="slow",policy="Ignore"} 1`) {
		t.Errorf("/metrics lacks the restart and the failures:\n%s", grepLines(metrics, "specd_plugin"))
	}
	if r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/readyz?verbose"}); !strings.Contains(r.Body, "[+]plugin/slow ok") {
		t.Errorf("/readyz?verbose:\n%s", r.Body)
	}
}

func grepLines(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
