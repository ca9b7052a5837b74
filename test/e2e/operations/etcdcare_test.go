package operations

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

const configMaps = "/api/v1/namespaces/default/configmaps"

func configMap(name string, size int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"d":%q}}`,
		name, strings.Repeat("x", size))
}

// TestEtcdNoSpace fills an embedded etcd given a small quota by rewriting
// one ConfigMap: the write that finds it full gets a 500 Status that
// names the cause, reads still work, and specd frees the history,
// defragments, disarms the alarm, and writes work again. The metrics
// docs/operations.md names are all on /metrics then.
func TestEtcdNoSpace(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Args: []string{"--etcd-quota-backend-bytes", strconv.Itoa(8 << 20),
		"--etcd-check-interval", "200ms", "--etcd-compaction-interval", "0"}})
	if r := testhttp.Do(t, s.Client, testhttp.Request{Method: http.MethodPost, URL: s.URL + configMaps, ContentType: "application/json", Body: configMap("big", 512<<10)}); r.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	var full testhttp.Result
	for i := 0; i < 100 && full.Code == 0; i++ {
		r := testhttp.Do(t, s.Client, testhttp.Request{Method: http.MethodPut, URL: s.URL + configMaps + "/big", ContentType: "application/json", Body: configMap("big", 512<<10+i)})
		switch r.Code {
		case http.StatusOK:
		case http.StatusInternalServerError:
			full = r
		default:
			t.Fatalf("rewrite %d: %d %s", i, r.Code, r.Body)
		}
	}
	if full.Code == 0 {
		t.Fatal("100 rewrites of a 512 KiB ConfigMap fit in an 8 MiB quota")
	}
	status := harness.CheckStatus(t, full, http.StatusInternalServerError, metav1.StatusReasonInternalError)
	if want := docStatus(t).Message; status.Message != want {
		t.Errorf("message %q\ndocs/operations.md shows %q", status.Message, want)
	}
	if r := testhttp.Do(t, s.Client, testhttp.Request{URL: s.URL + configMaps + "/big"}); r.Code != http.StatusOK {
		t.Errorf("read after the storage filled up: %d %s", r.Code, r.Body)
	}
	waitWrite(t, s)
	if n, _ := strconv.Atoi(harness.MetricValue(t, s.Client, s, "apiserver_storage_nospace_disarms_total")); n < 1 {
		t.Errorf("apiserver_storage_nospace_disarms_total %v, want at least 1", n)
	}
	checkDocMetrics(t, s)
}

// docStatus is the Status docs/operations.md shows for a write to a full
// etcd.
func docStatus(t *testing.T) metav1.Status {
	t.Helper()
	section := operationsSection(t, "## Disk full (NOSPACE)")
	_, block, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatal("docs/operations.md's NOSPACE section has no json block")
	}
	block, _, _ = strings.Cut(block, "```")
	var status metav1.Status
	if err := json.Unmarshal([]byte(block), &status); err != nil {
		t.Fatalf("docs/operations.md's NOSPACE Status: %v", err)
	}
	return status
}

// waitWrite waits until a create succeeds: specd has freed the space.
func waitWrite(t *testing.T, s *harness.Specd) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		r := testhttp.Do(t, s.Client, testhttp.Request{Method: http.MethodPost, URL: s.URL + configMaps, ContentType: "application/json", Body: configMap(fmt.Sprintf("after-%d", i), 10)})
		if r.Code == http.StatusCreated {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes still refused 30 s after the storage filled up: %d %s", r.Code, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// docMetric is a metric's row in docs/operations.md's table.
var docMetric = regexp.MustCompile("(?m)^\\| `([a-z_]+)`")

// checkDocMetrics checks that every metric docs/operations.md's Metrics
// table names is on /metrics.
func checkDocMetrics(t *testing.T, s *harness.Specd) {
	t.Helper()
	doc := operationsSection(t, "## Metrics")
	page := testhttp.Do(t, s.Client, testhttp.Request{URL: s.URL + "/metrics"}).Body
	names := docMetric.FindAllStringSubmatch(doc, -1)
	if len(names) < 8 {
		t.Fatalf("docs/operations.md's Metrics table names %d metrics", len(names))
	}
	for _, m := range names {
		if !strings.Contains(page, "\n"+m[1]) {
			t.Errorf("docs/operations.md names %s, which /metrics does not have", m[1])
		}
	}
}

// operationsSection is the text of docs/operations.md under heading, up
// to the next heading of the same level.
func operationsSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/operations.md has no %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// docCommands are the specd commands of the shell blocks of a section.
func docCommands(t *testing.T, section string) [][]string {
	t.Helper()
	var cmds [][]string
	in := false
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			in = line == "```sh"
		case in && strings.HasPrefix(line, "specd "):
			cmds = append(cmds, strings.Fields(line)[1:])
		}
	}
	return cmds
}

// TestSnapshotSaveRestore runs the commands of docs/operations.md's
// backup section: a snapshot saved from a running specd while writers
// go on, restored into a new data directory and served from there, has
// every ConfigMap acknowledged before the save began, and a revision
// moved far on.
func TestSnapshotSaveRestore(t *testing.T) {
	t.Parallel()
	cmds := docCommands(t, operationsSection(t, "## Backups: snapshot save and restore"))
	if len(cmds) != 2 || cmds[0][1] != "save" || cmds[1][1] != "restore" {
		t.Fatalf("docs/operations.md's backup section shows %q, want a save, then a restore", cmds)
	}
	work := t.TempDir()
	s := harness.StartSpecd(t, harness.SpecdOptions{DataDir: filepath.Join(work, "data")})
	w := startWriters(t, s, 4)
	w.waitAcked(t, 200)
	before := w.ackedNow()
	runIn(t, work, cmds[0])
	after := w.stop()
	s.Stop(t)
	t.Logf("%d creates acknowledged before the save, %d by its end", len(before), after)
	runIn(t, work, cmds[1])
	restored := harness.StartSpecd(t, harness.SpecdOptions{DataDir: filepath.Join(work, "restored")})
	var list struct {
		Metadata struct{ ResourceVersion string }
		Items    []struct{ Metadata struct{ Name string } }
	}
	r := testhttp.Do(t, restored.Client, testhttp.Request{URL: restored.URL + configMaps})
	if err := json.Unmarshal([]byte(r.Body), &list); err != nil {
		t.Fatalf("list: %v\n%s", err, r.Body)
	}
	have := map[string]bool{}
	for _, it := range list.Items {
		have[it.Metadata.Name] = true
	}
	for _, name := range before {
		if !have[name] {
			t.Errorf("%s, acknowledged before the save, is not in the restored data", name)
		}
	}
	if rv, _ := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64); rv < 1_000_000_000 {
		t.Errorf("restored list at resourceVersion %d, want it moved on past 1,000,000,000", rv)
	}
	if r := testhttp.Do(t, restored.Client, testhttp.Request{Method: http.MethodPost, URL: restored.URL + configMaps, ContentType: "application/json", Body: configMap("new", 10)}); r.Code != http.StatusCreated {
		t.Errorf("create after restore: %d %s", r.Code, r.Body)
	}
}

// runIn runs specd with args in dir, and fails the test if it fails.
func runIn(t *testing.T, dir string, args []string) {
	t.Helper()
	cmd := exec.Command(harness.Binaries.Specd, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("specd %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("specd %s: %s", strings.Join(args, " "), out)
}

// writers create ConfigMaps until stopped, and keep the names of those
// acknowledged.
type writers struct {
	mu     sync.Mutex
	acked  []string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startWriters(t *testing.T, s *harness.Specd, n int) *writers {
	ctx, cancel := context.WithCancel(t.Context())
	w := &writers{cancel: cancel}
	for i := range n {
		w.wg.Go(func() {
			for j := 0; ctx.Err() == nil; j++ {
				name := fmt.Sprintf("w%d-%d", i, j)
				r, err := testhttp.Send(ctx, s.Client, testhttp.Request{Method: http.MethodPost, URL: s.URL + configMaps, ContentType: "application/json", Body: configMap(name, 100)})
				if err != nil {
					continue
				}
				if r.Code == http.StatusCreated {
					w.mu.Lock()
					w.acked = append(w.acked, name)
					w.mu.Unlock()
				}
			}
		})
	}
	return w
}

func (w *writers) ackedNow() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.acked...)
}

func (w *writers) waitAcked(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(w.ackedNow()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d creates acknowledged in 30 s, want %d", len(w.ackedNow()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the writers and returns how many creates were acknowledged.
func (w *writers) stop() int {
	w.cancel()
	w.wg.Wait()
	return len(w.ackedNow())
}
