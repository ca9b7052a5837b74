package controller_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

var (
	fleetsRef = hook.ResourceRef{Group: "fleet.example.com", Version: "v1", Resource: "fleets"}
	shipsRef  = hook.ResourceRef{Group: "fleet.example.com", Version: "v1", Resource: "ships"}
)

const shipsFinalizer = "fleet.example.com/ships"

// env is a Store with a watch cache on a fresh embedded etcd, serving the
// example schemas, and a Client of it.
type env struct {
	reg    *schemas.Registry
	store  *engine.Store
	client *controller.Client
	fleets *schemas.ResourceVersion
	etcd   *clientv3.Client
}

// allowAll admits every write as it is: the example ships bind
// ship-policy, which these tests do not run.
type allowAll struct{}

func (allowAll) Default(_ context.Context, _ string, req hook.AdmissionRequest) ([]byte, error) {
	return req.Object, nil
}

func (allowAll) Validate(context.Context, string, hook.AdmissionRequest) ([]hook.FieldError, error) {
	return nil, nil
}

func newEnv(t *testing.T) *env {
	t.Helper()
	reg, err := schemas.Load(filepath.Join("..", "..", "examples", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	etcd := etcdtest.Start(t)
	storage := etcdstorage.New(etcd)
	caches := watchcache.New(storage, watchcache.Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(caches.Close)
	store := engine.NewStore(storage, engine.Options{Cache: caches, Admission: func(*engine.Store) hook.Admission { return allowAll{} }, Logger: slog.New(slog.DiscardHandler)})
	e := &env{reg: reg, store: store, fleets: reg.Lookup("fleet.example.com", "v1", "fleets"), etcd: etcd}
	e.client = controller.NewClient(store, func() *schemas.Registry { return reg })
	return e
}

// run starts a controller of fleets with rec until the test ends.
func (e *env) run(t *testing.T, rec hook.Reconciler, limiter workqueue.TypedRateLimiter[controller.Key]) *controller.Controller {
	t.Helper()
	c, err := controller.New(controller.Config{Resource: e.fleets, Store: e.store, Reconciler: rec, RateLimiter: limiter,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("controller did not stop within 10s")
		}
	})
	return c
}

// runManager runs a Manager of the example registry with rec until the
// test ends.
func (e *env) runManager(t *testing.T, rec hook.Reconciler) {
	t.Helper()
	m := controller.NewManager(controller.ManagerConfig{Store: e.store, Reconciler: rec, Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, e.reg) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Error("manager did not stop within 10s")
		}
	})
}

func fleet(name string, replicas int) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"fleet.example.com/v1","kind":"Fleet","metadata":{"name":%q},"spec":{"replicas":%d}}`, name, replicas)
}

// fleetController does what examples/plugins/fleet-controller does,
// through the Client.
type fleetController struct {
	client *controller.Client
}

func (f *fleetController) Kinds(context.Context, string) ([]hook.KindHooks, error) {
	return []hook.KindHooks{{Group: "fleet.example.com", Kind: "Fleet", Reconcile: true, Finalizer: shipsFinalizer}}, nil
}

func (f *fleetController) Reconcile(ctx context.Context, _ string, req hook.ReconcileRequest) (hook.ReconcileResult, error) {
	list, err := f.client.List(ctx, shipsRef, req.Namespace, "fleet.example.com/fleet="+req.Name)
	if err != nil {
		return hook.ReconcileResult{}, err
	}
	have := map[string]bool{}
	for _, s := range gjson.GetBytes(list, "items.#.metadata.name").Array() {
		have[s.Str] = true
	}
	want := int(gjson.GetBytes(req.Object, "spec.replicas").Int())
	if gjson.GetBytes(req.Object, "metadata.deletionTimestamp").Exists() {
		want = 0
	}
	for i := range want {
		name := fmt.Sprintf("%s-%d", req.Name, i)
		if have[name] {
			continue
		}
		ship := fmt.Sprintf(`{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":%q,"labels":{"fleet.example.com/fleet":%q},`+
			`"ownerReferences":[{"apiVersion":"fleet.example.com/v1","kind":"Fleet","name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]},"spec":{"class":"cargo"}}`,
			name, req.Name, req.Name, gjson.GetBytes(req.Object, "metadata.uid").Str)
		if _, err := f.client.Create(ctx, shipsRef, req.Namespace, []byte(ship)); err != nil && !apierrors.IsAlreadyExists(err) {
			return hook.ReconcileResult{}, err
		}
		have[name] = true
	}
	for name := range have {
		i, _ := strconv.Atoi(name[strings.LastIndex(name, "-")+1:])
		if i < want {
			continue
		}
		if err := f.client.Delete(ctx, shipsRef, req.Namespace, name, ""); err != nil && !apierrors.IsNotFound(err) {
			return hook.ReconcileResult{}, err
		}
		delete(have, name)
	}
	if gjson.GetBytes(req.Object, "metadata.deletionTimestamp").Exists() {
		return hook.ReconcileResult{FinalizerDone: true}, nil
	}
	ready, reason := "False", "Scaling"
	if len(have) == want {
		ready, reason = "True", "Converged"
	}
	status := fmt.Sprintf(`{"readyReplicas":%d,"conditions":[{"type":"Ready","status":%q,"reason":%q}]}`, len(have), ready, reason)
	return hook.ReconcileResult{Status: []byte(status)}, nil
}

// eventually fails the test unless cond holds within 10s.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not within 10s; last: %s", what, last)
}

func (e *env) shipNames(t *testing.T) []string {
	t.Helper()
	list, err := e.client.List(context.Background(), shipsRef, "sea", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range gjson.GetBytes(list, "items.#.metadata.name").Array() {
		names = append(names, n.Str)
	}
	slices.Sort(names)
	return names
}

func (e *env) shipsAre(t *testing.T, want ...string) func() (bool, string) {
	return func() (bool, string) {
		got := e.shipNames(t)
		return slices.Equal(got, want), fmt.Sprint(got)
	}
}

func TestControllerConverges(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.runManager(t, &fleetController{client: e.client})

	created, err := e.client.Create(ctx, fleetsRef, "sea", fleet("north", 3))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "three ships", e.shipsAre(t, "north-0", "north-1", "north-2"))
	eventually(t, "status", func() (bool, string) {
		obj, _ := e.client.Get(ctx, fleetsRef, "sea", "north")
		st := gjson.GetBytes(obj, "status")
		return st.Get("readyReplicas").Int() == 3 && st.Get("observedGeneration").Int() == 1 &&
			st.Get(`conditions.#(type=="Ready").status`).Str == "True" &&
			st.Get(`conditions.#(type=="Ready").reason`).Str == "Converged" &&
			st.Get(`conditions.#(type=="Ready").observedGeneration`).Int() == 1 &&
			st.Get(`conditions.#(type=="Ready").lastTransitionTime`).Str != "" &&
			slices.Equal(finalizers(obj), []string{shipsFinalizer}), string(obj)
	})
	if gjson.GetBytes(created, "metadata.finalizers").Exists() {
		t.Errorf("the client's create already had the finalizer: %s", created)
	}

	// Down to one: generation 2 is observed.
	if _, err := e.client.Patch(ctx, fleetsRef, "sea", "north", "merge", []byte(`{"spec":{"replicas":1}}`), ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "one ship", e.shipsAre(t, "north-0"))
	eventually(t, "generation 2 observed", func() (bool, string) {
		obj, _ := e.client.Get(ctx, fleetsRef, "sea", "north")
		return gjson.GetBytes(obj, "status.observedGeneration").Int() == 2 && gjson.GetBytes(obj, "status.readyReplicas").Int() == 1, string(obj)
	})

	// A ship deleted by hand comes back: deleting a ship the fleet owns
	// queues the fleet.
	before, _ := e.client.Get(ctx, shipsRef, "sea", "north-0")
	if err := e.client.Delete(ctx, shipsRef, "sea", "north-0", ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ship back", func() (bool, string) {
		after, err := e.client.Get(ctx, shipsRef, "sea", "north-0")
		return err == nil && gjson.GetBytes(after, "metadata.uid").Str != gjson.GetBytes(before, "metadata.uid").Str, string(after)
	})

	// Deleting the fleet: the finalizer holds it until its ships are gone.
	if err := e.client.Delete(ctx, fleetsRef, "sea", "north", ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "ships and fleet gone", func() (bool, string) {
		_, err := e.client.Get(ctx, fleetsRef, "sea", "north")
		names := e.shipNames(t)
		return apierrors.IsNotFound(err) && len(names) == 0, fmt.Sprintf("fleet: %v, ships %v", err, names)
	})
}

func finalizers(obj []byte) []string {
	var out []string
	for _, f := range gjson.GetBytes(obj, "metadata.finalizers").Array() {
		out = append(out, f.Str)
	}
	return out
}

// scripted is a Reconciler whose answers a test decides, which records
// its calls and how many run at once per object.
type scripted struct {
	mu        sync.Mutex
	calls     map[string]int
	running   map[string]int
	maxAtOnce int
	seen      map[string][]int64 // generations seen, per object
	reconcile func(req hook.ReconcileRequest, n int) (hook.ReconcileResult, error)
	kinds     func() ([]hook.KindHooks, error)
	delay     time.Duration
}

func newScripted() *scripted {
	return &scripted{calls: map[string]int{}, running: map[string]int{}, seen: map[string][]int64{}}
}

func (s *scripted) Kinds(context.Context, string) ([]hook.KindHooks, error) {
	if s.kinds != nil {
		return s.kinds()
	}
	return []hook.KindHooks{{Group: "fleet.example.com", Kind: "Fleet", Reconcile: true}}, nil
}

func (s *scripted) Reconcile(_ context.Context, _ string, req hook.ReconcileRequest) (hook.ReconcileResult, error) {
	key := req.Namespace + "/" + req.Name
	s.mu.Lock()
	s.calls[key]++
	n := s.calls[key]
	s.running[key]++
	s.maxAtOnce = max(s.maxAtOnce, s.running[key])
	s.seen[key] = append(s.seen[key], gjson.GetBytes(req.Object, "metadata.generation").Int())
	s.mu.Unlock()
	time.Sleep(s.delay)
	s.mu.Lock()
	s.running[key]--
	s.mu.Unlock()
	if s.reconcile == nil {
		return hook.ReconcileResult{}, nil
	}
	return s.reconcile(req, n)
}

func (s *scripted) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[key]
}

func fastRetries() workqueue.TypedRateLimiter[controller.Key] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[controller.Key](time.Millisecond, 20*time.Millisecond)
}

func TestControllerRetriesWithBackoff(t *testing.T) {
	e := newEnv(t)
	rec := newScripted()
	rec.reconcile = func(_ hook.ReconcileRequest, n int) (hook.ReconcileResult, error) {
		if n <= 3 {
			return hook.ReconcileResult{}, errors.New("not yet")
		}
		return hook.ReconcileResult{}, nil
	}
	e.run(t, rec, fastRetries())
	if _, err := e.client.Create(context.Background(), fleetsRef, "sea", fleet("a", 1)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "four calls", func() (bool, string) { n := rec.count("sea/a"); return n == 4, fmt.Sprint(n) })
	time.Sleep(100 * time.Millisecond)
	if n := rec.count("sea/a"); n != 4 {
		t.Errorf("%d calls after success, want 4: a success ends the retries", n)
	}
}

func TestControllerRequeue(t *testing.T) {
	tests := map[string]hook.ReconcileResult{
		"requeueAfter": {RequeueAfter: 30 * time.Millisecond},
		"requeue":      {Requeue: true},
	}
	for name, res := range tests {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			rec := newScripted()
			rec.reconcile = func(hook.ReconcileRequest, int) (hook.ReconcileResult, error) { return res, nil }
			e.run(t, rec, fastRetries())
			if _, err := e.client.Create(context.Background(), fleetsRef, "sea", fleet("a", 1)); err != nil {
				t.Fatal(err)
			}
			eventually(t, "called again without a change", func() (bool, string) {
				n := rec.count("sea/a")
				return n >= 4, fmt.Sprint(n)
			})
		})
	}
}

// TestControllerOneAtATime: changes while an object is reconciled queue it
// once more; it is never reconciled twice at once, and the last reconcile
// sees the last generation.
func TestControllerOneAtATime(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rec := newScripted()
	rec.delay = 30 * time.Millisecond
	e.run(t, rec, nil)
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("a", 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("b", 0)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 20; i++ {
		patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, i)
		if _, err := e.client.Patch(ctx, fleetsRef, "sea", "a", "merge", patch, ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Millisecond)
	}
	eventually(t, "generation 21 reconciled", func() (bool, string) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		seen := rec.seen["sea/a"]
		return len(seen) > 0 && seen[len(seen)-1] == 21, fmt.Sprint(seen)
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.maxAtOnce != 1 {
		t.Errorf("an object was reconciled %d times at once", rec.maxAtOnce)
	}
	if n := rec.calls["sea/a"]; n >= 21 {
		t.Errorf("%d reconciles for 21 generations: queued keys were not merged", n)
	}
	if rec.calls["sea/b"] == 0 {
		t.Error("fleet b was never reconciled")
	}
}

func TestControllerKindsFailure(t *testing.T) {
	e := newEnv(t)
	rec := newScripted()
	var mu sync.Mutex
	failures := 2
	rec.kinds = func() ([]hook.KindHooks, error) {
		mu.Lock()
		defer mu.Unlock()
		if failures > 0 {
			failures--
			return nil, errors.New("plugin not started")
		}
		return []hook.KindHooks{{Group: "fleet.example.com", Kind: "Fleet", Reconcile: true, Finalizer: "x.example.com/f"}}, nil
	}
	e.run(t, rec, fastRetries())
	if _, err := e.client.Create(context.Background(), fleetsRef, "sea", fleet("a", 0)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "finalizer added once kinds answers", func() (bool, string) {
		obj, _ := e.client.Get(context.Background(), fleetsRef, "sea", "a")
		return slices.Equal(finalizers(obj), []string{"x.example.com/f"}) && rec.count("sea/a") > 0, string(obj)
	})
}

func TestNewNeedsABinding(t *testing.T) {
	e := newEnv(t)
	ships := e.reg.Lookup("fleet.example.com", "v1", "ships")
	if _, err := controller.New(controller.Config{Resource: ships, Store: e.store, Reconciler: newScripted()}); err == nil {
		t.Error("New accepted a resource without a reconcile binding")
	}
	bound := controller.Bound(e.reg)
	if len(bound) != 1 || bound[0] != e.fleets {
		t.Errorf("Bound = %v, want fleets only", bound)
	}
}

func TestStatusWrites(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rec := newScripted()
	var mu sync.Mutex
	status := `{"readyReplicas":0,"conditions":[{"type":"Ready","status":"False","reason":"Scaling","lastTransitionTime":"2020-01-01T00:00:00Z"}]}`
	rec.reconcile = func(hook.ReconcileRequest, int) (hook.ReconcileResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return hook.ReconcileResult{Status: []byte(status)}, nil
	}
	e.run(t, rec, nil)
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("a", 2)); err != nil {
		t.Fatal(err)
	}
	var first string
	eventually(t, "status written", func() (bool, string) {
		obj, _ := e.client.Get(ctx, fleetsRef, "sea", "a")
		first = gjson.GetBytes(obj, `status.conditions.0.lastTransitionTime`).Str
		return first == "2020-01-01T00:00:00Z" && gjson.GetBytes(obj, "status.observedGeneration").Int() == 1, string(obj)
	})
	// The same condition status with a new time keeps the old time; the
	// writes that change nothing stop.
	mu.Lock()
	status = `{"readyReplicas":2,"conditions":[{"type":"Ready","status":"False","reason":"Scaling","lastTransitionTime":"2030-01-01T00:00:00Z"}]}`
	mu.Unlock()
	if _, err := e.client.Patch(ctx, fleetsRef, "sea", "a", "merge", []byte(`{"spec":{"replicas":3}}`), ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "status kept its transition time", func() (bool, string) {
		obj, _ := e.client.Get(ctx, fleetsRef, "sea", "a")
		return gjson.GetBytes(obj, "status.readyReplicas").Int() == 2 && gjson.GetBytes(obj, "status.observedGeneration").Int() == 2 &&
			gjson.GetBytes(obj, `status.conditions.0.lastTransitionTime`).Str == "2020-01-01T00:00:00Z", string(obj)
	})
	settled := rec.count("sea/a")
	time.Sleep(200 * time.Millisecond)
	if n := rec.count("sea/a"); n > settled+1 {
		t.Errorf("%d more reconciles once the status settled: its writes keep queueing the object", n-settled)
	}
	// A status that is not an object is an error, retried.
	mu.Lock()
	status = `[1]`
	mu.Unlock()
	if _, err := e.client.Patch(ctx, fleetsRef, "sea", "a", "merge", []byte(`{"spec":{"replicas":4}}`), ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "bad status retried", func() (bool, string) {
		n := rec.count("sea/a")
		return n >= settled+3, fmt.Sprint(n)
	})
}

func TestClient(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, err := e.client.Get(ctx, hook.ResourceRef{Group: "fleet.example.com", Version: "v9", Resource: "fleets"}, "sea", "a")
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "the server could not find the requested resource") {
		t.Errorf("unknown resource: %v", err)
	}
	if _, err := e.client.Get(ctx, fleetsRef, "sea", "a"); !apierrors.IsNotFound(err) {
		t.Errorf("missing object: %v", err)
	}
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("a", -1)); !apierrors.IsInvalid(err) {
		t.Errorf("invalid object: %v", err)
	}
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("a", 1)); err != nil {
		t.Fatal(err)
	}
	obj, err := e.client.Patch(ctx, fleetsRef, "sea", "a", "apply",
		[]byte(`{"apiVersion":"fleet.example.com/v1","kind":"Fleet","metadata":{"name":"a"},"spec":{"replicas":5}}`), "")
	if err != nil || gjson.GetBytes(obj, "spec.replicas").Int() != 5 {
		t.Fatalf("apply: %v %s", err, obj)
	}
	if m := gjson.GetBytes(obj, `metadata.managedFields.#(manager=="specd-reconciler").operation`).Str; m != "Apply" {
		t.Errorf("managedFields: %s", gjson.GetBytes(obj, "metadata.managedFields"))
	}
	obj, err = e.client.Patch(ctx, fleetsRef, "sea", "a", "application/json-patch+json",
		[]byte(`[{"op":"add","path":"/status","value":{"readyReplicas":1}}]`), "status")
	if err != nil || gjson.GetBytes(obj, "status.readyReplicas").Int() != 1 {
		t.Fatalf("status patch: %v %s", err, obj)
	}
	var m map[string]any
	_ = json.Unmarshal(obj, &m)
	m["spec"] = map[string]any{"replicas": 7}
	body, _ := json.Marshal(m)
	if obj, err = e.client.Update(ctx, fleetsRef, "sea", "a", body); err != nil || gjson.GetBytes(obj, "spec.replicas").Int() != 7 {
		t.Fatalf("update: %v %s", err, obj)
	}
	if _, err := e.client.UpdateStatus(ctx, fleetsRef, "sea", "a", body); !apierrors.IsConflict(err) {
		t.Errorf("stale status update: %v, want a conflict", err)
	}
	if err := e.client.Delete(ctx, fleetsRef, "sea", "a", "Sideways"); !apierrors.IsBadRequest(err) {
		t.Errorf("bad propagation policy: %v", err)
	}
	if err := e.client.Delete(ctx, fleetsRef, "sea", "a", "Foreground"); err != nil {
		t.Errorf("delete: %v", err)
	}
	list, err := e.client.List(ctx, fleetsRef, "", "")
	if err != nil || gjson.GetBytes(list, "kind").Str != "FleetList" {
		t.Errorf("list: %v %s", err, list)
	}
	if _, err := e.client.List(ctx, fleetsRef, "", "a in (b"); !apierrors.IsBadRequest(err) {
		t.Errorf("bad selector: %v", err)
	}
}

// TestAwaitWork: AwaitWork waits for an object of a bound resource; one of
// another resource does not count.
func TestAwaitWork(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	done := make(chan struct{})
	go func() {
		controller.AwaitWork(ctx, e.store, func() *schemas.Registry { return e.reg })
		close(done)
	}()
	ship := `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"lone"},"spec":{}}`
	if _, err := e.client.Create(ctx, shipsRef, "sea", []byte(ship)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("AwaitWork returned for a ship: ships bind no reconciler")
	case <-time.After(1500 * time.Millisecond):
	}
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("a", 0)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AwaitWork did not return within 5s of a fleet's creation")
	}
	// A context that ends ends the wait.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	controller.AwaitWork(ended, e.store, func() *schemas.Registry { return schemas.NewRegistry(nil) })
}
