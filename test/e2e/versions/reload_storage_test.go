package versions

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
)

// migTimeout bounds each wait of the storage-move test: a reload, the
// migration of a few dozen objects, a watcher catching up.
const migTimeout = 30 * time.Second

// TestReloadMovesStorageVersion: a reload makes v2 the storage version of
// the Gizmo while clients list, watch (in both versions) and write. The
// reload is applied, the migration rewrites every object so that etcd
// holds it in v2 and says it is done, the objects read as before in both
// versions, every write succeeds, and each watcher sees every change of
// etcd exactly once, watching again from its last resourceVersion when
// its stream ends. Then the storage version moves back to v1, alike.
func TestReloadMovesStorageVersion(t *testing.T) {
	t.Parallel()
	endpoints, cli := harness.StartEtcdClient(t)
	dir := filepath.Join(t.TempDir(), "schemas")
	writeMigSchemas(t, dir, "v1")
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, EtcdServers: endpoints})
	m := &migClient{t: t, s: s, http: &http.Client{Timeout: 10 * time.Second}}

	const n = 40
	for i := range n {
		m.create([]string{"v1", "v2"}[i%2], fmt.Sprintf("g%02d", i), i)
	}
	// The objects as clients read them before any move, in both versions.
	before := map[string]map[string]map[string]any{}
	var startRV string
	for _, v := range []string{"v1", "v2"} {
		var items map[string]map[string]any
		items, startRV = m.list(v)
		if len(items) != n {
			t.Fatalf("%d gizmos in %s, want %d", len(items), v, n)
		}
		before[v] = items
	}
	start, _ := strconv.ParseInt(startRV, 10, 64)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watchers := []*gizmoWatch{newGizmoWatch(ctx, s, "v1", start), newGizmoWatch(ctx, s, "v2", start)}

	for phase, target := range []string{"v2", "v1"} {
		other := map[string]string{"v1": "v2", "v2": "v1"}[target]
		t.Logf("moving the storage version to %s", target)
		load := m.startLoad(ctx, fmt.Sprintf("p%d", phase), n)
		reloads := strings.Count(s.Stderr.String(), "changed=[gizmos.migrate.example.com]")
		migrated := m.metric("specd_storage_migration_objects_total", `,result="migrated"`)
		writeMigSchemas(t, dir, target)
		harness.WaitFor(t, migTimeout, "the reload applied", func() bool {
			return strings.Count(s.Stderr.String(), "changed=[gizmos.migrate.example.com]") > reloads
		})
		harness.WaitFor(t, migTimeout, "every gizmo stored in "+target, func() bool {
			for _, o := range migStored(t, cli) {
				if o.Get("apiVersion").Str != migGroup+"/"+target {
					return false
				}
			}
			return true
		})
		harness.WaitFor(t, migTimeout, "the migration done", func() bool {
			return m.metric("specd_storage_migration_done", "") == "1" && m.metric("specd_storage_migration_pending", "") == "0"
		})
		// Writes go on after the migration too.
		time.Sleep(300 * time.Millisecond)
		written := load.stop()

		if !strings.Contains(s.Stderr.String(), fmt.Sprintf(`msg="storage migration done" resource=gizmos.migrate.example.com storageVersion=%s previous=%s`, target, other)) {
			t.Errorf("specd did not log the migration to %s as done", target)
		}
		if target == "v2" {
			// The lines docs/versions.md shows, but for the counts.
			for _, line := range versionsDocLog(t) {
				line, _, _ = strings.Cut(line, " migrated=")
				if !strings.Contains(s.Stderr.String(), line) {
					t.Errorf("specd did not log, as docs/versions.md shows:\n%s", line)
				}
			}
		}
		if got, _ := strconv.Atoi(m.metric("specd_storage_migration_objects_total", `,result="migrated"`)); got <= atoi(migrated) {
			t.Errorf("migrated objects metric %d after the move to %s, was %s", got, target, migrated)
		}
		if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"}); strings.Contains(r.Body, "[!]schemas") {
			t.Errorf("the last reload failed:\n%s", r.Body)
		}
		// The objects written before any move read as they did, in both
		// versions, but for their resourceVersion; those the load wrote
		// have its last sizes.
		for _, v := range []string{"v1", "v2"} {
			items, _ := m.list(v)
			for name, want := range before[v] {
				if got := items[name]; !reflect.DeepEqual(withoutRV(got), withoutRV(want)) {
					t.Errorf("%s in %s after the move to %s:\n got %v\nwant %v", name, v, target, got, want)
				}
			}
			for name, size := range written {
				if got := harness.Path(items[name], "spec", "size"); got != float64(size) {
					t.Errorf("%s in %s: spec.size %v, want %d", name, v, got, size)
				}
			}
		}
		// And a write after the move is stored in the new version.
		m.patchSize(other, "g00", 100+phase)
		if o := migStored(t, cli)["/specd/"+migGroup+"/gizmos/default/g00"]; o.Get("apiVersion").Str != migGroup+"/"+target || o.Get("spec.size").Int() != int64(100+phase) {
			t.Errorf("g00 after a write in %s: %s", other, o.Raw)
		}
		for _, v := range []string{"v1", "v2"} {
			before[v], _ = m.list(v)
		}
	}

	// Every change of etcd, seen once by each watcher.
	changes := etcdChanges(t, cli, "/specd/"+migGroup+"/gizmos/", start)
	for _, w := range watchers {
		harness.WaitFor(t, migTimeout, "the "+w.version+" watcher caught up", func() bool { return w.caughtUp(changes) })
		w.check(t, changes)
	}
}

// migClient is a client of the Gizmos of one specd, failing the test on
// any unexpected answer.
type migClient struct {
	t    *testing.T
	s    *harness.Specd
	http *http.Client
}

func (m *migClient) url(version, name string) string {
	u := fmt.Sprintf("%s/apis/%s/%s/namespaces/default/gizmos", m.s.URL, migGroup, version)
	if name != "" {
		u += "/" + name
	}
	return u
}

// gizmoBody is a Gizmo of the migration tests in version, labelled
// l<size> in v2.
func gizmoBody(version, name string, size int) string {
	if version == "v2" {
		return testschemas.GizmoV2(migGroup, name, size, fmt.Sprintf("l%d", size))
	}
	return testschemas.GizmoV1(migGroup, name, size)
}

func (m *migClient) create(version, name string, size int) {
	m.t.Helper()
	if r := testhttp.Do(m.t, m.http, testhttp.Request{Method: http.MethodPost, URL: m.url(version, ""), ContentType: "application/json", Body: gizmoBody(version, name, size)}); r.Code != http.StatusCreated {
		m.t.Fatalf("create %s in %s: %d %s", name, version, r.Code, r.Body)
	}
}

func (m *migClient) patchSize(version, name string, size int) {
	m.t.Helper()
	r := testhttp.Do(m.t, m.http, testhttp.Request{Method: http.MethodPatch, URL: m.url(version, name), ContentType: "application/merge-patch+json", Body: fmt.Sprintf(`{"spec":{"size":%d}}`, size)})
	if r.Code != http.StatusOK {
		m.t.Fatalf("patch %s in %s: %d %s", name, version, r.Code, r.Body)
	}
}

// list returns the gizmos of a list in version by name, and the list's
// resourceVersion.
func (m *migClient) list(version string) (map[string]map[string]any, string) {
	m.t.Helper()
	r := testhttp.Do(m.t, m.http, testhttp.Request{URL: m.url(version, "")})
	if r.Code != http.StatusOK {
		m.t.Fatalf("list in %s: %d %s", version, r.Code, r.Body)
	}
	var list struct {
		Metadata struct{ ResourceVersion string }
		Items    []map[string]any
	}
	if err := json.Unmarshal([]byte(r.Body), &list); err != nil {
		m.t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, item := range list.Items {
		if av := item["apiVersion"]; av != nil && av != migGroup+"/"+version {
			m.t.Errorf("a list in %s has an item in %v", version, av)
		}
		out[harness.Path(item, "metadata", "name").(string)] = item
	}
	return out, list.Metadata.ResourceVersion
}

// metric is the value of one of the Gizmo's migration series.
func (m *migClient) metric(name, labels string) string {
	m.t.Helper()
	return harness.MetricValue(m.t, m.http, m.s, fmt.Sprintf(`%s{group=%q,resource="gizmos"%s}`, name, migGroup, labels))
}

// migLoad lists and writes until stopped.
type migLoad struct {
	stop func() map[string]int // the sizes last written, by object
}

// startLoad starts a client that lists in both versions and one that
// creates objects (named prefix-N) and patches them, alternating the
// versions; every answer must be a success, every list hold the n
// objects of the start at least.
func (m *migClient) startLoad(ctx context.Context, prefix string, n int) *migLoad {
	// Stopping lets the requests under way finish: the sizes written are
	// those the server answered.
	var stopping atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	problem := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	send := func(method, url, contentType, body string) (int, string) {
		r, err := testhttp.Send(ctx, m.http, testhttp.Request{Method: method, URL: url, ContentType: contentType, Body: body})
		if err != nil {
			return 0, err.Error()
		}
		return r.Code, r.Body
	}
	wg.Go(func() {
		for i := 0; !stopping.Load(); i++ {
			v := []string{"v1", "v2"}[i%2]
			code, body := send(http.MethodGet, m.url(v, ""), "", "")
			if items := gjson.Get(body, "items.#").Int(); code != http.StatusOK || items < int64(n) {
				problem("list in %s: %d, %d items: %.300s", v, code, items, body)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	written := map[string]int{}
	wg.Go(func() {
		var names []string
		for i := 0; !stopping.Load(); i++ {
			v := []string{"v1", "v2"}[i%2]
			if i%3 == 0 {
				name := fmt.Sprintf("%s-%d", prefix, len(names))
				code, body := send(http.MethodPost, m.url(v, ""), "application/json", gizmoBody(v, name, i))
				if code != http.StatusCreated {
					problem("create %s in %s: %d %.300s", name, v, code, body)
					continue
				}
				names = append(names, name)
				written[name] = i
			} else {
				name := names[i%len(names)]
				code, body := send(http.MethodPatch, m.url(v, name), "application/merge-patch+json", fmt.Sprintf(`{"spec":{"size":%d}}`, i))
				if code != http.StatusOK {
					problem("patch %s in %s: %d %.300s", name, v, code, body)
					continue
				}
				written[name] = i
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	return &migLoad{stop: func() map[string]int {
		stopping.Store(true)
		wg.Wait()
		for _, p := range problems {
			m.t.Error(p)
		}
		return written
	}}
}

// withoutRV is obj without metadata.resourceVersion, which every write
// (the migration's too) moves.
func withoutRV(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	b, _ := json.Marshal(obj)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if md, ok := out["metadata"].(map[string]any); ok {
		delete(md, "resourceVersion")
	}
	return out
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// etcdChange is one change of a key in etcd.
type etcdChange struct {
	key     string
	deleted bool
}

// etcdChanges reads from etcd every change under prefix after revision
// start, up to now, by revision.
func etcdChanges(t *testing.T, cli *clientv3.Client, prefix string, start int64) map[int64]etcdChange {
	t.Helper()
	ctx := harness.Context(t, migTimeout)
	now, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wch := cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(start+1), clientv3.WithProgressNotify())
	out := map[int64]etcdChange{}
	ask := time.NewTicker(100 * time.Millisecond)
	defer ask.Stop()
	for {
		select {
		case resp, ok := <-wch:
			if !ok || resp.Err() != nil {
				t.Fatalf("etcd watch: %v", resp.Err())
			}
			for _, ev := range resp.Events {
				out[ev.Kv.ModRevision] = etcdChange{key: string(ev.Kv.Key), deleted: ev.Type == clientv3.EventTypeDelete}
			}
			if resp.IsProgressNotify() && resp.Header.Revision >= now.Header.Revision {
				return out
			}
		case <-ask.C:
			_ = cli.RequestProgress(ctx)
		case <-ctx.Done():
			t.Fatal("etcd's changes not read in time")
		}
	}
}

// gizmoWatch is a client that watches the Gizmos in one version from a
// resourceVersion, and watches again from the last one it saw whenever
// its stream ends, as client-go's reflector does.
type gizmoWatch struct {
	version string

	mu        sync.Mutex
	seen      map[int64]string // by resourceVersion: the object's name
	last      int64            // the last resourceVersion (of a bookmark too)
	rewatches int
	problems  []string
}

func newGizmoWatch(ctx context.Context, s *harness.Specd, version string, from int64) *gizmoWatch {
	w := &gizmoWatch{version: version, seen: map[int64]string{}, last: from}
	base := fmt.Sprintf("%s/apis/%s/%s/namespaces/default/gizmos?watch=true&allowWatchBookmarks=true&resourceVersion=", s.URL, migGroup, version)
	go func() {
		for ctx.Err() == nil {
			w.mu.Lock()
			url := base + strconv.FormatInt(w.last, 10)
			w.mu.Unlock()
			if !w.watch(ctx, url) {
				return
			}
			w.mu.Lock()
			w.rewatches++
			w.mu.Unlock()
		}
	}()
	return w
}

// watch reads one stream to its end; false when the watcher must stop.
func (w *gizmoWatch) watch(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		w.problem("%v", err)
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			w.problem("watch %s: %v", url, err)
		}
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		w.problem("watch %s: HTTP %d %.300s", url, resp.StatusCode, b.String())
		return false
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		ev := gjson.ParseBytes(sc.Bytes())
		typ := ev.Get("type").Str
		if typ == "ERROR" {
			w.problem("ERROR event: %s", ev.Get("object").Raw)
			return false
		}
		rv := ev.Get("object.metadata.resourceVersion").Int()
		w.mu.Lock()
		switch {
		case typ == "BOOKMARK":
		case rv <= w.last:
			w.problems = append(w.problems, fmt.Sprintf("%s %s at %d after %d: seen twice or out of order", typ, ev.Get("object.metadata.name").Str, rv, w.last))
		case ev.Get("object.apiVersion").Str != migGroup+"/"+w.version:
			w.problems = append(w.problems, fmt.Sprintf("%s in %s", typ, ev.Get("object.apiVersion").Str))
		default:
			w.seen[rv] = ev.Get("object.metadata.name").Str
		}
		w.last = max(w.last, rv)
		w.mu.Unlock()
	}
	return ctx.Err() == nil
}

func (w *gizmoWatch) problem(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// caughtUp reports whether w has seen the last of changes, or stopped.
func (w *gizmoWatch) caughtUp(changes map[int64]etcdChange) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.problems) > 0 || w.last >= slices.Max(slices.Collect(maps.Keys(changes)))
}

// check compares the events w saw with the changes of etcd: each once.
func (w *gizmoWatch) check(t *testing.T, changes map[int64]etcdChange) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Errorf("the %s watcher: %s", w.version, p)
	}
	var lost, extra []string
	for rev, c := range changes {
		if name, ok := w.seen[rev]; !ok || !strings.HasSuffix(c.key, "/"+name) {
			lost = append(lost, fmt.Sprintf("%d %s (seen %q)", rev, c.key, name))
		}
	}
	for rev, name := range w.seen {
		if _, ok := changes[rev]; !ok {
			extra = append(extra, fmt.Sprintf("%d %s", rev, name))
		}
	}
	slices.Sort(lost)
	slices.Sort(extra)
	if len(lost) > 0 || len(extra) > 0 {
		t.Errorf("the %s watcher (%d events, watched again %d times) lost %d change(s) of etcd's %d: %v; saw %d that etcd did not make: %v",
			w.version, len(w.seen), w.rewatches, len(lost), len(changes), lost, len(extra), extra)
	}
	t.Logf("the %s watcher saw %d events, watching again %d times", w.version, len(w.seen), w.rewatches)
}

// versionsDocLog is the log docs/versions.md shows for the Gizmo's
// migration to v2.
func versionsDocLog(t *testing.T) []string {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "versions.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(md), "## Changing the storage version")
	_, rest, _ := strings.Cut(section, "Progress is in the log")
	_, rest, _ = strings.Cut(rest, "```text\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok || !strings.Contains(block, "storage migration done") {
		t.Fatal("docs/versions.md shows no log of a storage migration")
	}
	return strings.Split(strings.TrimSpace(block), "\n")
}
