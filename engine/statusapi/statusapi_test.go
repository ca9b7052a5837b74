package statusapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/memstorage"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/statusapi"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/serving"
)

// frobV1 and frobV2 are one kind in two versions, v1 converted to the
// storage version v2 by a rename.
const frobV1 = `openapi: 3.0.3
info: {title: f, version: v1}
x-specd: {group: frob.example.com}
components:
  schemas:
    Frobber:
      type: object
      x-specd-resource:
        conversion:
          rules:
          - rename: {from: spec.height, to: spec.heightInInches}
      properties:
        spec: {type: object, properties: {height: {type: integer}}}
`

const frobV2 = `openapi: 3.0.3
info: {title: f, version: v2}
x-specd: {group: frob.example.com}
components:
  schemas:
    Frobber:
      type: object
      x-specd-resource: {storage: true}
      properties:
        spec: {type: object, properties: {heightInInches: {type: integer}}}
`

// env is a Set on a directory, its reloads, and the publisher on a
// memory storage routed under a base one.
type env struct {
	dir     string
	set     *serving.Set
	reloads *serving.Reloads
	mem     *memstorage.Storage
	base    *memstorage.Storage
	plugins *pluginList
	cluster *fakeCluster
}

// fakeCluster answers what a test sets, or an error.
type fakeCluster struct {
	mu       sync.Mutex
	replicas []statusapi.Replica
	members  []statusapi.EtcdMember
	err      error
}

func (c *fakeCluster) set(rs []statusapi.Replica, ms []statusapi.EtcdMember, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replicas, c.members, c.err = rs, ms, err
}

func (c *fakeCluster) Replicas(context.Context) ([]statusapi.Replica, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replicas, c.err
}

func (c *fakeCluster) EtcdMembers(context.Context) ([]statusapi.EtcdMember, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.members, c.err
}

type pluginList struct {
	mu   sync.Mutex
	list []statusapi.Plugin
}

func (p *pluginList) get() []statusapi.Plugin {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]statusapi.Plugin(nil), p.list...)
}

func (p *pluginList) set(list ...statusapi.Plugin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = list
}

func start(t *testing.T, files map[string]string) *env {
	t.Helper()
	e := &env{dir: t.TempDir(), mem: memstorage.New(0), base: memstorage.New(0), plugins: &pluginList{}}
	testschemas.WriteFiles(t, e.dir, files)
	log := slog.New(slog.DiscardHandler)
	set, err := serving.New(t.Context(), serving.Config{Dir: e.dir, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	e.set = set
	e.reloads = set.Serve(t.Context(), nil)
	t.Cleanup(e.reloads.Stop)
	routed := memstorage.Route(e.base, statusapi.Prefix(engine.Keys{}), e.mem)
	e.cluster = &fakeCluster{}
	stop := statusapi.Start(t.Context(), statusapi.Config{Memory: e.mem, Keys: engine.Keys{}, Schemas: set, SchemaDir: e.dir,
		Storage: routed, Plugins: e.plugins.get, PluginInterval: 20 * time.Millisecond,
		Cluster: e.cluster, ClusterInterval: 20 * time.Millisecond, Logger: log})
	t.Cleanup(stop)
	return e
}

type object struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   map[string]any `json:"metadata"`
	Status     map[string]any `json:"status"`
}

// await polls the objects of plural until ok accepts them.
func (e *env) await(t *testing.T, plural string, ok func(map[string]object) bool) map[string]object {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		objs := e.list(t, plural)
		if ok(objs) {
			return objs
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(objs, "", "  ")
			t.Fatalf("%s never as wanted; last:\n%s", plural, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) list(t *testing.T, plural string) map[string]object {
	t.Helper()
	out := map[string]object{}
	for name, kv := range e.stored(t, plural) {
		var o object
		if err := json.Unmarshal(kv.Value, &o); err != nil {
			t.Fatal(err)
		}
		out[name] = o
	}
	return out
}

// stored are the objects of plural as the memory storage holds them, by
// name.
func (e *env) stored(t *testing.T, plural string) map[string]storage.KeyValue {
	t.Helper()
	prefix := statusapi.Prefix(engine.Keys{}) + plural + "/"
	res, err := e.mem.List(context.Background(), prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]storage.KeyValue{}
	for _, kv := range res.Items {
		out[strings.TrimPrefix(kv.Key, prefix)] = kv
	}
	return out
}

func TestSchemaFilesAndReloads(t *testing.T) {
	e := start(t, map[string]string{"frob-v1.yaml": frobV1, "frob-v2.yaml": frobV2})
	files := e.await(t, "schemafiles", func(m map[string]object) bool { return len(m) == 2 })
	f := files["frob-v1.yaml"]
	if f.Kind != "SchemaFile" || f.APIVersion != "status.specd.io/v1alpha1" || f.Status["path"] != "frob-v1.yaml" ||
		f.Status["phase"] != "Loaded" || f.Status["kinds"] != "Frobber" || f.Metadata["uid"] == "" {
		t.Fatalf("frob-v1.yaml = %+v", f)
	}
	testschemas.WriteFiles(t, e.dir, map[string]string{"broken.yaml": "openapi: 3.0.3\ninfo: {title: x, version: v1}\nx-specd: {group: 7}\n"})
	if err := e.reloads.Reload(t.Context(), "test"); err == nil {
		t.Fatal("a broken file reloaded")
	}
	files = e.await(t, "schemafiles", func(m map[string]object) bool { return m["broken.yaml"].Status["phase"] == "Failed" })
	problems, _ := files["broken.yaml"].Status["problems"].([]any)
	first, _ := problems[0].(map[string]any)
	if first["file"] != "broken.yaml" || first["pointer"] != "/x-specd/group" || first["message"] == "" {
		t.Fatalf("broken.yaml's first problem = %v, want file broken.yaml at /x-specd/group", first)
	}
	reloads := e.await(t, "schemareloads", func(m map[string]object) bool { return len(m) == 2 })
	if r := reloads["reload-00000002"]; r.Status["result"] != "Failed" || r.Status["trigger"] != "test" {
		t.Fatalf("second reload = %+v, want Failed by test", r)
	}
	if msg, _ := reloads["reload-00000002"].Status["message"].(string); !strings.Contains(msg, "broken.yaml") || strings.Contains(msg, e.dir) {
		t.Fatalf("second reload's message %q, want broken.yaml named without the server's directory", msg)
	}
}

// TestUnchangedFileKept: a reload that changes one file rewrites that
// file's object only.
func TestUnchangedFileKept(t *testing.T) {
	gadgets := func(props ...string) string {
		return testschemas.Gadgets(testschemas.GadgetOptions{Version: "v1", Props: props})
	}
	e := start(t, map[string]string{"frob-v1.yaml": frobV1, "frob-v2.yaml": frobV2, "g.yaml": gadgets(testschemas.SizeProp)})
	files := e.await(t, "schemafiles", func(m map[string]object) bool { return len(m) == 3 })
	before := e.stored(t, "schemafiles")
	// A load's time is in seconds: the reload comes in the next one, so
	// that a file found unchanged would show a new time if it were given
	// one.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	testschemas.WriteFiles(t, e.dir, map[string]string{"g.yaml": gadgets(testschemas.SizeProp, testschemas.ColorProp)})
	if err := e.reloads.Reload(t.Context(), "test"); err != nil {
		t.Fatal(err)
	}
	e.await(t, "schemafiles", func(m map[string]object) bool {
		return m["g.yaml"].Status["digest"] != files["g.yaml"].Status["digest"]
	})
	after := e.stored(t, "schemafiles")
	for name, kv := range before {
		if changed := after[name].ModRevision != kv.ModRevision; changed != (name == "g.yaml") {
			t.Errorf("%s rewritten: %t (revision %d, then %d); want only g.yaml", name, changed, kv.ModRevision, after[name].ModRevision)
		}
	}
}

// TestBurstOfReloadsPaced: a burst of reloads that each change one file
// rewrites that file's SchemaFile a few times, not once per reload, and
// the last write is of the last content.
func TestBurstOfReloadsPaced(t *testing.T) {
	gadgets := testschemas.Gadgets(testschemas.GadgetOptions{Version: "v1", Props: []string{testschemas.SizeProp}})
	e := start(t, map[string]string{"g.yaml": gadgets})
	e.await(t, "schemafiles", func(m map[string]object) bool { return len(m) == 1 })
	prefix := statusapi.Prefix(engine.Keys{}) + "schemafiles/"
	from, err := e.mem.List(t.Context(), prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	events := e.mem.Watch(ctx, prefix, from.Revision)
	const reloads = 20
	for i := range reloads {
		// A comment is enough to change the file's digest.
		testschemas.WriteFiles(t, e.dir, map[string]string{"g.yaml": fmt.Sprintf("%s# change %d\n", gadgets, i)})
		if err := e.reloads.Reload(t.Context(), "test"); err != nil {
			t.Fatal(err)
		}
	}
	want := e.set.Files()[filepath.Join(e.dir, "g.yaml")]
	writes, done := 0, false
	for ev := range events {
		writes++
		var o object
		if err := json.Unmarshal(ev.Value, &o); err != nil {
			t.Fatal(err)
		}
		if done = o.Status["digest"] == want; done {
			break
		}
	}
	if !done {
		t.Fatalf("g.yaml's SchemaFile never had the last digest %q (%d writes)", want, writes)
	}
	if writes > reloads/2 {
		t.Errorf("g.yaml's SchemaFile written %d times over %d reloads, want at most %d", writes, reloads, reloads/2)
	}
}

func TestRefusedReload(t *testing.T) {
	e := start(t, map[string]string{"g.yaml": testschemas.Gadgets(testschemas.GadgetOptions{Version: "v1",
		Props: []string{testschemas.SizeProp, testschemas.ColorProp}})})
	testschemas.WriteFiles(t, e.dir, map[string]string{"g.yaml": testschemas.Gadgets(testschemas.GadgetOptions{Version: "v1"})})
	_ = e.reloads.Reload(t.Context(), "test")
	reloads := e.await(t, "schemareloads", func(m map[string]object) bool { return m["reload-00000002"].Status["result"] == "Refused" })
	r := reloads["reload-00000002"]
	problems, _ := r.Status["problems"].([]any)
	first, _ := problems[0].(map[string]any)
	if first["rule"] != "field-removed" || first["file"] != "g.yaml" || !strings.Contains(r.Status["hint"].(string), "allowBreaking") {
		t.Fatalf("refused reload = %+v, want field-removed in g.yaml and the allowBreaking hint", r.Status)
	}
}

func TestConversion(t *testing.T) {
	e := start(t, map[string]string{"frob-v1.yaml": frobV1, "frob-v2.yaml": frobV2})
	convs := e.await(t, "conversions", func(m map[string]object) bool { return len(m) == 1 })
	c := convs["frobbers.frob.example.com"].Status
	versions, _ := c["versions"].([]any)
	v1, _ := versions[1].(map[string]any)
	rules, _ := v1["rules"].([]any)
	lossless, _ := c["lossless"].(map[string]any)
	if c["storageVersion"] != "v2" || len(versions) != 2 || v1["version"] != "v1" || len(rules) != 1 ||
		lossless["result"] != "Proven" || v1["file"] != "frob-v1.yaml" {
		t.Fatalf("conversion = %+v", c)
	}
}

func TestPlugins(t *testing.T) {
	e := start(t, map[string]string{"frob-v1.yaml": frobV1, "frob-v2.yaml": frobV2})
	e.plugins.set(statusapi.Plugin{Name: "checker", State: "idle"})
	e.await(t, "plugins", func(m map[string]object) bool { return m["checker"].Status["state"] == "idle" })
	e.plugins.set(statusapi.Plugin{Name: "checker", State: "restarting", Restarts: 2, LastError: "exit status 1"})
	objs := e.await(t, "plugins", func(m map[string]object) bool { return m["checker"].Status["state"] == "restarting" })
	if p := objs["checker"].Status; p["restarts"] != 2.0 || p["lastError"] != "exit status 1" || p["user"] != "system:plugin:checker" {
		t.Fatalf("plugin = %+v", p)
	}
	e.plugins.set()
	e.await(t, "plugins", func(m map[string]object) bool { return len(m) == 0 })
}

// TestMigrations: a migration state written to storage (by any replica)
// shows, and its change too.
func TestMigrations(t *testing.T) {
	e := start(t, map[string]string{"frob-v1.yaml": frobV1, "frob-v2.yaml": frobV2})
	key := migrate.StatePrefix(engine.Keys{}) + "frob.example.com/frobbers"
	rev, err := e.base.Create(t.Context(), key, []byte(`{"storageVersion":"v2","lastKey":"/specd/frob.example.com/frobbers/default/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	e.await(t, "storagemigrations", func(m map[string]object) bool {
		return m["frobbers.frob.example.com"].Status["lastKey"] == "/specd/frob.example.com/frobbers/default/a"
	})
	if _, err := e.base.Update(t.Context(), key, []byte(`{"storageVersion":"v2","done":true}`), rev); err != nil {
		t.Fatal(err)
	}
	e.await(t, "storagemigrations", func(m map[string]object) bool { return m["frobbers.frob.example.com"].Status["done"] == true })
}

// TestCluster: the replicas' election and the etcd members show as
// read, a change of leader too, and a failed reading keeps what was
// shown.
func TestCluster(t *testing.T) {
	e := start(t, map[string]string{"frob-v1.yaml": frobV1, "frob-v2.yaml": frobV2})
	a, b := "host-a/127.0.0.1:8080/10", "host-b/127.0.0.1:8081/11"
	e.cluster.set([]statusapi.Replica{{ID: a, Leader: true}, {ID: b}},
		[]statusapi.EtcdMember{{Name: "m1", ID: 0xab, Leader: true, Version: "3.7.3"}, {Name: "m2", ID: 0xcd, Err: "connection refused"}}, nil)
	reps := e.await(t, "replicas", func(m map[string]object) bool { return len(m) == 2 })
	if r := reps["host-a.127.0.0.1-8080.10"].Status; r["role"] != "Leader" || r["host"] != "host-a" || r["address"] != "127.0.0.1:8080" {
		t.Fatalf("replica a = %+v", r)
	}
	members := e.await(t, "etcdmembers", func(m map[string]object) bool { return len(m) == 2 })
	if m := members["m2"].Status; m["health"] != "Unhealthy" || m["error"] != "connection refused" || m["id"] != "cd" {
		t.Fatalf("member m2 = %+v", m)
	}
	e.cluster.set([]statusapi.Replica{{ID: b, Leader: true}}, nil, nil)
	e.await(t, "replicas", func(m map[string]object) bool {
		return len(m) == 1 && m["host-b.127.0.0.1-8081.11"].Status["role"] == "Leader"
	})
	e.cluster.set(nil, nil, errors.New("etcd unreachable"))
	time.Sleep(100 * time.Millisecond)
	if reps := e.list(t, "replicas"); len(reps) != 1 {
		t.Fatalf("replicas after a failed reading: %v, want the last read kept", reps)
	}
}
