package versions

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
)

// migGroup is the group of the migration tests' Gizmo (see
// testschemas.Gizmos): v1 says colour where v2 says color, and only v2
// has a label.
const migGroup = "migrate.example.com"

// migSchemas writes a schema directory whose storage version is
// storage and returns it.
func migSchemas(t *testing.T, storage string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "schemas")
	writeMigSchemas(t, dir, storage)
	return dir
}

// writeMigSchemas writes the Gizmo's files into dir, with storage as the
// storage version.
func writeMigSchemas(t *testing.T, dir, storage string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, migGroup), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, f := range testschemas.Gizmos(migGroup, storage) {
		harness.WriteFile(t, filepath.Join(dir, filepath.Dir(name)), filepath.Base(name), string(f.Data))
	}
}

// TestStorageVersionMigration: objects written while v1 is the storage
// version are rewritten in v2 after a restart with the storage version
// moved, as etcd shows; the metrics and logs say so, and the next start
// does not migrate again.
func TestStorageVersionMigration(t *testing.T) {
	t.Parallel()
	endpoints, cli := harness.StartEtcdClient(t)
	client := &http.Client{Timeout: 10 * time.Second}
	gizmos := func(s *harness.Specd, version, name string) string {
		u := fmt.Sprintf("%s/apis/%s/%s/namespaces/default/gizmos", s.URL, migGroup, version)
		if name != "" {
			u += "/" + name
		}
		return u
	}

	before := harness.StartSpecd(t, harness.SpecdOptions{Schemas: migSchemas(t, "v1"), EtcdServers: endpoints})
	const n = 30
	for i := range n {
		version := "v1"
		if i%2 == 1 {
			version = "v2"
		}
		body := gizmoBody(version, fmt.Sprintf("g%02d", i), i)
		if r := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: gizmos(before, version, ""), ContentType: "application/json", Body: body}); r.Code != http.StatusCreated {
			t.Fatalf("create g%02d in %s: %d %s", i, version, r.Code, r.Body)
		}
	}
	stored := migStored(t, cli)
	if len(stored) != n {
		t.Fatalf("%d gizmos in etcd, want %d", len(stored), n)
	}
	for key, o := range stored {
		if o.Get("apiVersion").Str != migGroup+"/v1" {
			t.Fatalf("%s stored as %s before the change", key, o.Get("apiVersion").Str)
		}
	}
	before.Stop(t)

	after := harness.StartSpecd(t, harness.SpecdOptions{Schemas: migSchemas(t, "v2"), EtcdServers: endpoints})
	harness.WaitFor(t, 30*time.Second, "every gizmo stored in v2", func() bool {
		for _, o := range migStored(t, cli) {
			if o.Get("apiVersion").Str != migGroup+"/v2" {
				return false
			}
		}
		return true
	})
	for key, o := range migStored(t, cli) {
		i, _ := strconv.Atoi(key[len(key)-2:])
		wantColor, wantLabel := "red", ""
		if i%2 == 1 {
			wantColor, wantLabel = "blue", fmt.Sprintf("l%d", i)
		}
		if o.Get("spec.color").Str != wantColor || o.Get("spec.label").Str != wantLabel || o.Get("spec.size").Int() != int64(i) ||
			o.Get("metadata.annotations").Exists() || o.Get("metadata.generation").Int() != 1 {
			t.Errorf("%s after the migration: %s", key, o.Raw)
		}
	}
	series := fmt.Sprintf(`{group=%q,resource="gizmos"`, migGroup)
	harness.WaitFor(t, 10*time.Second, "the done gauge", func() bool {
		return harness.MetricValue(t, client, after, "specd_storage_migration_done"+series+"}") == "1"
	})
	if got := harness.MetricValue(t, client, after, "specd_storage_migration_objects_total"+series+`,result="migrated"}`); got != strconv.Itoa(n) {
		t.Errorf("migrated objects metric = %q, want %d", got, n)
	}
	if got := harness.MetricValue(t, client, after, "specd_storage_migration_pending"+series+"}"); got != "0" {
		t.Errorf("pending metric = %q, want 0", got)
	}
	logs := after.Stderr.String()
	for _, want := range []string{
		`msg="storage migration started" resource=gizmos.migrate.example.com storageVersion=v2 previous=v1 resumeAfter=""`,
		fmt.Sprintf(`msg="storage migration done" resource=gizmos.migrate.example.com storageVersion=v2 previous=v1 migrated=%d current=0 gone=0 failed=0`, n),
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("specd's log lacks %s", want)
		}
	}
	state, err := cli.Get(t.Context(), "/specd/_storage-migrations/"+migGroup+"/gizmos")
	if err != nil || len(state.Kvs) != 1 {
		t.Fatalf("migration state: %v %v", state, err)
	}
	if s := gjson.ParseBytes(state.Kvs[0].Value); s.Get("storageVersion").Str != "v2" || !s.Get("done").Bool() {
		t.Errorf("migration state %s, want done for v2", state.Kvs[0].Value)
	}

	// Both versions read what was written.
	v1 := testhttp.Do(t, client, testhttp.Request{URL: gizmos(after, "v1", "g01")})
	expect(t, "g01 in v1", v1.Body, map[string]string{"spec.colour": "blue", "spec.size": "1"})
	if strings.Contains(v1.Body, "conversion-data") {
		t.Errorf("v1 shows the bookkeeping: %s", v1.Body)
	}
	v2 := testhttp.Do(t, client, testhttp.Request{URL: gizmos(after, "v2", "g01")})
	expect(t, "g01 in v2", v2.Body, map[string]string{"spec.color": "blue", "spec.label": "l1"})
	after.Stop(t)

	// Recorded as done: the next start reads no object.
	again := harness.StartSpecd(t, harness.SpecdOptions{Schemas: migSchemas(t, "v2"), EtcdServers: endpoints})
	harness.WaitFor(t, 10*time.Second, "the done gauge after a restart", func() bool {
		return harness.MetricValue(t, client, again, "specd_storage_migration_done"+series+"}") == "1"
	})
	if got := harness.MetricValue(t, client, again, "specd_storage_migration_objects_total"+series+`,result="current"}`); got != "" {
		t.Errorf("a restart examined objects again: current = %s", got)
	}
}

// migStored reads the stored gizmos from etcd: the object by key.
func migStored(t *testing.T, cli *clientv3.Client) map[string]gjson.Result {
	t.Helper()
	resp, err := cli.Get(harness.Context(t, 10*time.Second), "/specd/"+migGroup+"/gizmos/", clientv3.WithPrefix())
	if err != nil {
		t.Fatalf("read etcd: %v", err)
	}
	out := map[string]gjson.Result{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = gjson.ParseBytes(kv.Value)
	}
	return out
}
