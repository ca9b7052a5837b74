package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specd-io/specd/check"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/internal/gizmotest"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/metrics"
)

// TestMigrateRewritesEveryObject: every object stored in the old version
// is rewritten in the new one, metadata untouched, in pages; a second run
// does nothing; a later change of the storage version migrates again.
func TestMigrateRewritesEveryObject(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	const n = 23
	for i := range n {
		if i%2 == 0 {
			mustCreate(t, before, old.V1, "default", old.ObjectV1(fmt.Sprintf("g%02d", i), i))
		} else {
			mustCreate(t, before, old.V2, "ns2", old.ObjectV2(fmt.Sprintf("g%02d", i), i, fmt.Sprintf("l%d", i)))
		}
	}
	was := gizmotest.Stored(t, st, prefix, group)

	cur := gizmotest.Load(t, group, "v2")
	after := cur.Store(st, prefix, testNow)
	res, err := migrate.New(after.Upkeep(), slog.New(slog.DiscardHandler)).MigrateResource(ctx, cur.Resource, migrate.Options{PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Migrated != n || res.Current != 0 || res.Failed != 0 || res.AlreadyDone {
		t.Errorf("result %+v, want %d migrated", res, n)
	}
	now := gizmotest.Stored(t, st, prefix, group)
	if len(now) != n {
		t.Fatalf("%d objects stored, want %d", len(now), n)
	}
	for key, o := range now {
		prev := was[key]
		if o.Get("apiVersion").Str != group+"/v2" {
			t.Errorf("%s not migrated: %s", key, o.Raw)
		}
		if o.Get("spec.color").Str != prev.Get("spec.colour").Str || o.Get("spec.size").Int() != prev.Get("spec.size").Int() {
			t.Errorf("%s: spec %s, was %s", key, o.Get("spec").Raw, prev.Get("spec").Raw)
		}
		// The label comes out of the bookkeeping; the rest of metadata is
		// as it was.
		if o.Get("metadata.annotations").Exists() {
			t.Errorf("%s keeps bookkeeping: %s", key, o.Raw)
		}
		if o.Get("metadata.namespace").Str == "ns2" && o.Get("spec.label").Str == "" {
			t.Errorf("%s lost its label: %s", key, o.Raw)
		}
		for _, f := range []string{"metadata.uid", "metadata.creationTimestamp", "metadata.generation", "metadata.managedFields"} {
			if o.Get(f).Raw != prev.Get(f).Raw {
				t.Errorf("%s: %s = %s, was %s", key, f, o.Get(f).Raw, prev.Get(f).Raw)
			}
		}
	}
	checkMetric(t, "migrated", metricValue(t, "specd_storage_migration_objects_total", group, "migrated"), n)
	checkMetric(t, "done", metricValue(t, "specd_storage_migration_done", group, ""), 1)

	// Recorded as done: a restart reads nothing.
	again, err := migrator(cur, st, prefix).MigrateResource(ctx, cur.Resource, migrate.Options{})
	if err != nil || !again.AlreadyDone || again.Examined() != 0 {
		t.Errorf("second run: %+v, %v; want already done", again, err)
	}

	// The storage version moves back: everything is migrated again.
	back, err := migrator(old, st, prefix).MigrateResource(ctx, old.Resource, migrate.Options{})
	if err != nil || back.Migrated != n {
		t.Errorf("migration back to v1: %+v, %v", back, err)
	}
	for key, o := range gizmotest.Stored(t, st, prefix, group) {
		if o.Get("apiVersion").Str != group+"/v1" || o.Get("spec.colour").Str != was[key].Get("spec.colour").Str {
			t.Errorf("%s after the migration back: %s", key, o.Raw)
		}
	}
}

// TestMigrateLosesNoConcurrentWrite: a client write that lands between the
// migration's read and its write wins; the migration reads the object
// again and finds it migrated (the client wrote it in the new storage
// version) or gone.
func TestMigrateLosesNoConcurrentWrite(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	const n = 12
	for i := range n {
		mustCreate(t, before, old.V1, "default", old.ObjectV1(fmt.Sprintf("g%02d", i), 1))
	}

	cur := gizmotest.Load(t, group, "v2")
	client := cur.Store(st, prefix, testNow)
	// Just before the migration writes every third object, a client
	// patches it; every fourth is deleted instead.
	race := &hookStorage{Storage: st, beforeUpdate: func(key string) {
		name := key[len(key)-3:]
		var i int
		fmt.Sscanf(name, "g%02d", &i)
		switch {
		case i%4 == 0:
			if _, err := client.Delete(ctx, engine.Ref{Version: cur.V2, Namespace: "default", Name: name}, engine.DeleteOptions{}); err != nil {
				t.Errorf("delete %s: %v", name, err)
			}
		case i%3 == 0:
			if _, err := client.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: cur.V1, Namespace: "default", Name: name}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"size":100}}`), Options: engine.PatchOptions{}}); err != nil {
				t.Errorf("patch %s: %v", name, err)
			}
		}
	}}
	res, err := migrator(cur, race, prefix).MigrateResource(ctx, cur.Resource, migrate.Options{PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	// Deleted: 0, 4, 8. Patched: 3, 6, 9. Migrated: the other six.
	if res.Gone != 3 || res.Current != 3 || res.Migrated != 6 || res.Failed != 0 {
		t.Errorf("result %+v, want 3 gone, 3 current, 6 migrated", res)
	}
	// The patched ones conflicted; the deleted ones were simply gone.
	if c := metricValue(t, "specd_storage_migration_conflicts_total", group, ""); c != 3 {
		t.Errorf("conflicts metric %v, want 3", c)
	}
	stored := gizmotest.Stored(t, st, prefix, group)
	if len(stored) != n-3 {
		t.Errorf("%d objects left, want %d", len(stored), n-3)
	}
	for key, o := range stored {
		var i int
		fmt.Sscanf(key[len(key)-3:], "g%02d", &i)
		want := int64(1)
		if i%3 == 0 {
			want = 100
		}
		if o.Get("apiVersion").Str != group+"/v2" || o.Get("spec.size").Int() != want || o.Get("spec.color").Str != "red" {
			t.Errorf("%s: %s, want size %d in v2", key, o.Raw, want)
		}
	}
}

// TestMigrateWithConcurrentClients: clients patch every object while the
// migration runs; every patch is kept and every object ends in the
// storage version.
func TestMigrateWithConcurrentClients(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	const n, rounds = 20, 5
	for i := range n {
		mustCreate(t, before, old.V1, "default", old.ObjectV1(fmt.Sprintf("g%02d", i), 0))
	}
	cur := gizmotest.Load(t, group, "v2")
	client := cur.Store(st, prefix, testNow)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for r := 1; r <= rounds; r++ {
				for i := w; i < n; i += 2 {
					patch := fmt.Sprintf(`{"spec":{"size":%d}}`, r)
					if _, err := client.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: cur.V1, Namespace: "default", Name: fmt.Sprintf("g%02d", i)}, Type: engine.MergePatchType, Patch: []byte(patch), Options: engine.PatchOptions{}}); err != nil {
						t.Errorf("patch: %v", err)
					}
				}
			}
		})
	}
	res, err := migrator(cur, st, prefix).MigrateResource(ctx, cur.Resource, migrate.Options{PageSize: 3})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Examined() != n || res.Failed != 0 || res.Gone != 0 {
		t.Errorf("result %+v, want %d examined", res, n)
	}
	for key, o := range gizmotest.Stored(t, st, prefix, group) {
		if o.Get("apiVersion").Str != group+"/v2" || o.Get("spec.size").Int() != rounds || o.Get("spec.color").Str != "red" {
			t.Errorf("%s: %s, want size %d in v2", key, o.Raw, rounds)
		}
	}
}

// TestMigrateResumes: a migration stopped in its third page continues,
// after a restart, after the last key of the second.
func TestMigrateResumes(t *testing.T) {
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	const n, page = 17, 5
	for i := range n {
		mustCreate(t, before, old.V1, "default", old.ObjectV1(fmt.Sprintf("g%02d", i), i))
	}
	cur := gizmotest.Load(t, group, "v2")

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	updates := 0
	stopper := &hookStorage{Storage: st, beforeUpdate: func(string) {
		if updates++; updates == 2*page+3 {
			stop() // the 13th write fails: three of the third page are done
		}
	}}
	res, err := migrator(cur, stopper, prefix).MigrateResource(ctx, cur.Resource, migrate.Options{PageSize: page})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %+v, %v; want context.Canceled", res, err)
	}
	if res.Migrated != 2*page+2 {
		t.Errorf("interrupted run migrated %d, want %d", res.Migrated, 2*page+2)
	}
	lastOfPage2 := prefix + group + "/gizmos/default/g09"

	var starts []string
	watcher := &hookStorage{Storage: st, onList: func(opts storage.ListOptions) { starts = append(starts, opts.StartKey) }}
	res, err = migrator(cur, watcher, prefix).MigrateResource(context.Background(), cur.Resource, migrate.Options{PageSize: page})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResumedAfter != lastOfPage2 || len(starts) == 0 || starts[0] != lastOfPage2+"\x00" {
		t.Errorf("resumed after %q, first list from %q; want after %q", res.ResumedAfter, starts, lastOfPage2)
	}
	// The third page again (two migrated before the stop), and the rest.
	if res.Current != 2 || res.Migrated != n-2*page-2 {
		t.Errorf("resumed run: %+v, want 2 current, %d migrated", res, n-2*page-2)
	}
	for key, o := range gizmotest.Stored(t, st, prefix, group) {
		if o.Get("apiVersion").Str != group+"/v2" {
			t.Errorf("%s not migrated: %s", key, o.Raw)
		}
	}
	state, err := st.Get(context.Background(), migrator(cur, st, prefix).StateKey(cur.Resource))
	if err != nil {
		t.Fatal(err)
	}
	if s := gjson.ParseBytes(state.Value); s.Get("storageVersion").Str != "v2" || !s.Get("done").Bool() {
		t.Errorf("state %s, want done for v2", state.Value)
	}
}

// TestMigrateTwoReplicas: two specd on one etcd migrate at once; each
// object is rewritten exactly once.
func TestMigrateTwoReplicas(t *testing.T) {
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	const n = 30
	for i := range n {
		mustCreate(t, before, old.V1, "default", old.ObjectV1(fmt.Sprintf("g%02d", i), i))
	}
	cur := gizmotest.Load(t, group, "v2")
	results := make([]migrate.Result, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			var err error
			results[i], err = migrator(cur, st, prefix).MigrateResource(context.Background(), cur.Resource, migrate.Options{PageSize: 4})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := results[0].Migrated + results[1].Migrated; got != n {
		t.Errorf("migrated %d in all (%+v), want %d", got, results, n)
	}
	for key, o := range gizmotest.Stored(t, st, prefix, group) {
		if o.Get("apiVersion").Str != group+"/v2" {
			t.Errorf("%s not migrated: %s", key, o.Raw)
		}
	}
}

// TestMigrateLeavesUnconvertible: an object in a version no schema
// declares is counted and left; the migration is not recorded as done,
// so the next run reads everything again.
func TestMigrateLeavesUnconvertible(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	cur := gizmotest.Load(t, group, "v2")
	s := cur.Store(st, prefix, testNow)
	mustCreate(t, s, cur.V1, "default", cur.ObjectV1("ok", 1))
	stray := fmt.Sprintf(`{"apiVersion":"%s/v0","kind":"Gizmo","metadata":{"name":"old","namespace":"default"},"spec":{}}`, group)
	if _, err := st.Create(ctx, prefix+group+"/gizmos/default/old", []byte(stray)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := migrate.New(s.Upkeep(), slog.New(slog.DiscardHandler)).MigrateResource(ctx, cur.Resource, migrate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 1 || res.Current != 1 || res.AlreadyDone {
			t.Errorf("result %+v, want 1 failed, 1 current", res)
		}
	}
	checkMetric(t, "done", metricValue(t, "specd_storage_migration_done", group, ""), 0)
}

// hookStorage calls its hooks before the calls they name.
type hookStorage struct {
	storage.Storage
	beforeUpdate func(key string)
	onList       func(storage.ListOptions)
}

func (h *hookStorage) Update(ctx context.Context, key string, value []byte, rev int64) (int64, error) {
	if h.beforeUpdate != nil && strings.Contains(key, "/gizmos/") { // not the migration state
		h.beforeUpdate(key)
	}
	return h.Storage.Update(ctx, key, value, rev)
}

func (h *hookStorage) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if h.onList != nil {
		h.onList(opts)
	}
	return h.Storage.List(ctx, prefix, opts)
}

// metricValue is the value of the series of name for the gizmos of group
// (and result, when not ""), from specd's registry; 0 when absent.
func metricValue(t *testing.T, name, group, result string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["group"] != group || labels["resource"] != "gizmos" || (result != "" && labels["result"] != result) {
				continue
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

func expectFields(t *testing.T, what string, obj []byte, want map[string]string) {
	t.Helper()
	for path, v := range want {
		if got := gjson.GetBytes(obj, path).String(); got != v {
			t.Errorf("%s: %s = %q, want %q\n%s", what, path, got, v, obj)
		}
	}
}

func checkMetric(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got != want {
		t.Errorf("metric %s = %v, want %v", what, got, want)
	}
}

// TestMigrateWritesNothingWhenCurrent: a resource whose objects are all in
// its storage version (a new one, or one whose storage version never
// changed) costs a read and no write: no resourceVersion moves.
func TestMigrateWritesNothingWhenCurrent(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	cur := gizmotest.Load(t, group, "v2")
	s := cur.Store(st, prefix, testNow)
	for i := range 3 {
		mustCreate(t, s, cur.V1, "default", cur.ObjectV1(fmt.Sprintf("g%d", i), i))
	}
	objects := prefix + group + "/gizmos/"
	before, err := st.List(ctx, objects, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := migrator(cur, st, prefix)
	res, err := m.MigrateResource(ctx, cur.Resource, migrate.Options{})
	if err != nil || res.Current != 3 || res.Migrated != 0 {
		t.Fatalf("result %+v, %v; want 3 current", res, err)
	}
	after, err := st.List(ctx, objects, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, kv := range after.Items {
		if kv.ModRevision != before.Items[i].ModRevision {
			t.Errorf("%s was written: revision %d, was %d", kv.Key, kv.ModRevision, before.Items[i].ModRevision)
		}
	}
	if _, err := st.Get(ctx, m.StateKey(cur.Resource)); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Errorf("a state was recorded: %v", err)
	}
	checkMetric(t, "done", metricValue(t, "specd_storage_migration_done", group, ""), 1)
}

// TestMigrateLogs: a migration logs its start, its progress and its
// counts.
func TestMigrateLogs(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	for i := range 5 {
		mustCreate(t, before, old.V1, "default", old.ObjectV1(fmt.Sprintf("g%d", i), i))
	}
	cur := gizmotest.Load(t, group, "v2")
	var logs strings.Builder
	m := migrate.New(cur.Store(st, prefix, testNow).Upkeep(), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime})))
	if _, err := m.MigrateResource(ctx, cur.Resource, migrate.Options{PageSize: 2, LogEvery: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	res := "resource=gizmos." + group + " storageVersion=v2 previous=v1"
	for _, want := range []string{
		`level=INFO msg="storage migration started" ` + res + ` resumeAfter=""`,
		`level=INFO msg="storage migration progress" ` + res + ` migrated=2 current=0 gone=0 failed=0 pending=3`,
		`level=INFO msg="storage migration done" ` + res + ` migrated=5 current=0 gone=0 failed=0 took=`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s\n%s", want, logs.String())
		}
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// TestForgetStale: the states of migrations to another version
// than a resource's storage version are deleted, the others kept (a
// resource the registry does not serve included); objects written after
// the storage version moved back are then migrated when it moves again.
func TestForgetStale(t *testing.T) {
	ctx := context.Background()
	prefix := newPrefix()
	st := etcdstorage.New(testClient)
	g1, g2 := gizmotest.NewGroup(), gizmotest.NewGroup()
	g1v1, g1v2 := gizmotest.Load(t, g1, "v1"), gizmotest.Load(t, g1, "v2")
	g2v1, g2v2 := gizmotest.Load(t, g2, "v1"), gizmotest.Load(t, g2, "v2")
	// g1 migrated to v2, g2 to v1: both done.
	mustCreate(t, g1v1.Store(st, prefix, testNow), g1v1.V1, "default", g1v1.ObjectV1("a", 1))
	mustCreate(t, g2v2.Store(st, prefix, testNow), g2v2.V2, "default", g2v2.ObjectV2("a", 1, "x"))
	for _, m := range []*gizmotest.Gizmos{g1v2, g2v1} {
		if res, err := migrator(m, st, prefix).MigrateResource(ctx, m.Resource, migrate.Options{}); err != nil || res.Migrated != 1 {
			t.Fatalf("%s: %+v, %v", m.Group, res, err)
		}
	}
	s, m := g1v1.Store(st, prefix, testNow), migrator(g1v1, st, prefix)
	key1, key2 := m.StateKey(g1v1.Resource), m.StateKey(g2v1.Resource)

	// g1's storage version moves back to v1; g2 is not in that registry.
	forgotten, err := m.ForgetStale(ctx, g1v1.Registry)
	if err != nil || len(forgotten) != 1 || forgotten[0] != key1 {
		t.Fatalf("forgotten %v, %v; want %s", forgotten, err, key1)
	}
	if _, err := st.Get(ctx, key2); err != nil {
		t.Errorf("the state of a resource not in the registry: %v", err)
	}
	// g2's state is for its storage version.
	if forgotten, err := m.ForgetStale(ctx, g2v1.Registry); err != nil || len(forgotten) != 0 {
		t.Errorf("forgotten %v, %v; want none", forgotten, err)
	}
	if _, err := st.Get(ctx, key2); err != nil {
		t.Errorf("the state of a migration to the storage version: %v", err)
	}

	// A client writes in v1 before any migration to v1 ran, and the
	// storage version moves to v2 again: without the forgotten state,
	// the migration to v2 would be taken for done and b left in v1.
	mustCreate(t, s, g1v1.V1, "default", g1v1.ObjectV1("b", 2))
	res, err := migrator(g1v2, st, prefix).MigrateResource(ctx, g1v2.Resource, migrate.Options{})
	if err != nil || res.AlreadyDone || res.Migrated != 1 || res.Current != 1 {
		t.Errorf("g1 to v2 again: %+v, %v; want b migrated, a current", res, err)
	}
}

// TestStoredVersions counts the objects of a resource by the version each
// is stored in, and names the first of each.
func TestStoredVersions(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	v1, v2 := gizmotest.Load(t, group, "v1"), gizmotest.Load(t, group, "v2")
	for i := range 3 {
		mustCreate(t, v1.Store(st, prefix, testNow), v1.V2, "ns1", v1.ObjectV2(fmt.Sprintf("a%d", i), i, "x"))
	}
	for i := range 2 {
		mustCreate(t, v2.Store(st, prefix, testNow), v2.V1, "ns2", v2.ObjectV1(fmt.Sprintf("b%d", i), i))
	}
	stray := fmt.Sprintf(`{"apiVersion":"%s/v0","kind":"Gizmo","metadata":{"name":"c","namespace":"ns0"}}`, group)
	if _, err := st.Create(ctx, prefix+group+"/gizmos/ns0/c", []byte(stray)); err != nil {
		t.Fatal(err)
	}
	// Not a gizmo: another resource whose plural starts alike.
	if _, err := st.Create(ctx, prefix+group+"/gizmosx/ns0/d", []byte(stray)); err != nil {
		t.Fatal(err)
	}
	got, err := migrate.StoredObjects{Storage: st, Keys: engine.Keys{Prefix: prefix}}.StoredVersions(ctx, v2.Resource)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]check.Stored{
		"v1": {Count: 3, Example: "ns1/a0"},
		"v2": {Count: 2, Example: "ns2/b0"},
		"v0": {Count: 1, Example: "ns0/c"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored versions %v, want %v", got, want)
	}
}
