package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

const (
	// callTimeout bounds every call: a write of a few KB, or of an object
	// at the body limit, takes milliseconds.
	callTimeout = 2 * time.Second
	// maxCallAlloc bounds what one call allocates: the largest object is
	// 3 MiB, and the JSON patch took gigabytes.
	maxCallAlloc = 512 << 20
)

// realWidget is the object most seeds work on.
const realWidget = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real"},"spec":{"size":1}}`

// fuzzSeeds are valid uses of every verb and the five defects of issue 13,
// in order: `go test` names them seed#0, seed#1...
var fuzzSeeds = []struct{ name, prog string }{
	{"lifecycle", lines(
		"create "+realWidget,
		`put real {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real","resourceVersion":"$RV"},"spec":{"size":2}}`,
		`status real {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real","resourceVersion":"$RV"},"status":{"ready":true}}`,
		`merge real {"metadata":{"labels":{"a":"b"},"finalizers":["example.com/f"]}}`,
		`json real [{"op":"replace","path":"/spec/size","value":3}]`,
		`apply,force real {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real"},"spec":{"size":4}}`,
		"delete real",
		`merge real {"metadata":{"finalizers":null}}`)},
	{"options", lines(
		"create,dry "+realWidget,
		`create,strict {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"s"},"spec":{"size":1,"x":1}}`,
		`apply,ignore a {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":1,"x":1}}`,
		`merge,status a {"status":{"ready":true}}`,
		"list",
		"get a")},
	// Defect 1: the object stored under the first metadata's name.
	{"duplicate-metadata-post", lines(
		`create {"metadata":{"name":"other"},"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real"},"spec":{"size":1}}`,
		"get real")},
	// Defect 1: a PUT renames the stored object.
	{"duplicate-metadata-put", lines(
		"create "+realWidget,
		`put real {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real","resourceVersion":"$RV"},"metadata":{"name":"evil","resourceVersion":"$RV"},"spec":{"size":2}}`)},
	// Defect 2: the twenty copies, and twenty that double the
	// object each.
	{"json-patch-copies", lines(
		"create "+bigSpecWidget,
		"json real ["+strings.Repeat(`{"op":"copy","from":"/spec","path":"/spec/x"},`, 19)+`{"op":"copy","from":"/spec","path":"/spec/x"}]`)},
	{"json-patch-doubling", lines(
		"create "+bigSpecWidget,
		"json real "+doublingCopies(20))},
	// Defect 3: finalizers validated on create only.
	{"null-finalizer-merge", lines(
		"create "+realWidget,
		`merge real {"metadata":{"finalizers":[null]}}`,
		`apply real {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real"},"spec":{"size":2}}`,
		"delete real")},
	{"bad-finalizers-merge", lines(
		"create "+realWidget,
		`merge real {"metadata":{"finalizers":["bad finalizer",""]}}`)},
	{"null-finalizer-put", lines(
		"create "+realWidget,
		`put real {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real","resourceVersion":"$RV","finalizers":[null]},"spec":{"size":1}}`)},
	{"bad-finalizer-json", lines(
		"create "+realWidget,
		`json real [{"op":"add","path":"/metadata/finalizers","value":["bad finalizer"]}]`)},
	// Beside defect 3: kube decodes metadata into ObjectMeta, so a null
	// label or annotation value is stored as "".
	{"null-label", lines(
		`create {"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real","labels":{"a":null}},"spec":{"size":1}}`)},
	// Defect 4: a continue token from the future.
	{"future-continue", lines(
		"create "+realWidget,
		"list 1000")},
	// Defect 5: over etcd's request limit, under the body limit.
	{"big-object", lines("big real 2048")},
}

// bigSpecWidget has a spec of about 150 bytes.
var bigSpecWidget = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real"},"spec":{"size":1,"tags":["` +
	strings.Repeat("x", 100) + `"]}}`

// doublingCopies is a JSON patch of n copies of spec into a new field of
// itself.
func doublingCopies(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"copy","from":"/spec","path":"/spec/x%d"}`, i)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

func lines(l ...string) string { return strings.Join(l, "\n") }

// FuzzWritePath runs programs of writes and reads (see op) on a Store over
// the package's etcd, each under a fresh prefix, and checks after every
// call what the write path promises: a refusal is a 4xx Status, a write
// stores what it answers under the key its name gives, a refused or
// dry-run write stores nothing, stored metadata is valid, and no call
// runs long or allocates without bound.
func FuzzWritePath(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add(seed.prog)
	}
	rv := widgets(f)
	f.Fuzz(func(t *testing.T, prog string) {
		e := newFuzzEnv(t, rv)
		for _, o := range parseProgram(prog) {
			e.run(o)
		}
	})
}

// fuzzEnv is one input's store.
type fuzzEnv struct {
	t  *testing.T
	s  *engine.Store
	st storage.Storage
	rv *schemas.ResourceVersion
}

// fuzzInputs counts inputs, to compact etcd now and then.
var fuzzInputs atomic.Int64

func newFuzzEnv(t *testing.T, rv *schemas.ResourceVersion) *fuzzEnv {
	s, st := newStore(t)
	// A long fuzz run writes thousands of objects, some of megabytes:
	// delete them, and compact etcd's history of them, as it goes.
	t.Cleanup(func() {
		ctx := context.Background()
		resp, err := testClient.Delete(ctx, s.Upkeep().Keys().Prefix, clientv3.WithPrefix())
		if err == nil && fuzzInputs.Add(1)%64 == 0 {
			_, err = testClient.Compact(ctx, resp.Header.Revision)
		}
		// Inputs that wrote nothing leave the revision compacted already.
		if err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
			t.Errorf("cleaning up: %v", err)
		}
	})
	return &fuzzEnv{t: t, s: s, st: st, rv: rv}
}

// run calls o and checks what it answered and stored.
func (e *fuzzEnv) run(o op) {
	before := e.snapshot()
	obj, err := e.bounded(o)
	if err != nil {
		e.checkRefusal(o, err)
	}
	if err != nil || reads[o.verb] || o.flags["dry"] {
		if after := e.snapshot(); !reflect.DeepEqual(before, after) {
			e.t.Fatalf("%s: stored changed without a write (err %v)\nbefore: %v\n after: %v", o, err, before, after)
		}
	}
	if err == nil && o.writes() {
		e.checkReadBack(o, obj)
	}
	if o.verb == "list" && err == nil {
		e.checkListNames(o, obj)
	}
	e.checkStored(o)
}

// bounded calls o with callTimeout and fails when it ran longer or
// allocated more than maxCallAlloc.
func (e *fuzzEnv) bounded(o op) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	type answer struct {
		obj []byte
		err error
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		obj, err := verbs[o.verb](e, ctx, o)
		done <- answer{obj, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-time.After(callTimeout + time.Second):
		// A call that ignores its context cannot be stopped: ending the
		// process is the only bound on what it goes on to use.
		panic(fmt.Sprintf("%s: no answer after %v: the call ignores its context", o, callTimeout+time.Second))
	}
	runtime.ReadMemStats(&after)
	if took := time.Since(start); took > callTimeout || errors.Is(a.err, context.DeadlineExceeded) {
		e.t.Fatalf("%s: took %v (limit %v), err %v", o, took, callTimeout, a.err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxCallAlloc {
		e.t.Fatalf("%s: allocated %d MiB (limit %d MiB)", o, alloc>>20, maxCallAlloc>>20)
	}
	return a.obj, a.err
}

// checkRefusal fails unless err is a client error, or kube's 504 for a
// resourceVersion storage has not reached yet.
func (e *fuzzEnv) checkRefusal(o op, err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		e.t.Fatalf("%s: error is not a Status (%T): %v", o, err, err)
	}
	st := se.Status()
	if st.Code >= 400 && st.Code < 500 || tooLargeResourceVersion(st) {
		return
	}
	e.t.Fatalf("%s: answered %d %s: %s", o, st.Code, st.Reason, st.Message)
}

func tooLargeResourceVersion(st metav1.Status) bool {
	if st.Code != 504 || st.Details == nil {
		return false
	}
	for _, c := range st.Details.Causes {
		if c.Type == metav1.CauseTypeResourceVersionTooLarge {
			return true
		}
	}
	return false
}

// checkReadBack fails unless a GET by the answered object's name answers
// the same object, or none when the write took the last finalizer of an
// object being deleted.
func (e *fuzzEnv) checkReadBack(o op, obj []byte) {
	name := gjson.GetBytes(obj, "metadata.name").String()
	ns := gjson.GetBytes(obj, "metadata.namespace").String()
	got, err := e.s.Get(context.Background(), engine.Ref{Version: e.rv, Namespace: ns, Name: name})
	gone := gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() && !gjson.GetBytes(obj, "metadata.finalizers.0").Exists()
	if gone && apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		e.t.Fatalf("%s: answered %s/%s, GET: %v", o, ns, name, err)
	}
	if !sameValue(got, obj) {
		e.t.Fatalf("%s: GET differs from the answer\nanswer: %.2000s\n   GET: %.2000s", o, obj, got)
	}
}

// checkListNames fails when a list names an object twice.
func (e *fuzzEnv) checkListNames(o op, list []byte) {
	seen := map[string]bool{}
	for _, n := range gjson.GetBytes(list, "items.#.metadata.name").Array() {
		if seen[n.String()] {
			e.t.Fatalf("%s: %q listed twice", o, n)
		}
		seen[n.String()] = true
	}
}

// checkStored fails unless every stored object is under the key its
// metadata names and its metadata is valid as kube-apiserver validates it.
func (e *fuzzEnv) checkStored(o op) {
	prefix := e.s.Upkeep().Keys().Resource(e.rv.Resource)
	for _, kv := range e.stored(prefix) {
		var obj struct{ Metadata metav1.ObjectMeta }
		if err := json.Unmarshal(kv.Value, &obj); err != nil {
			e.t.Fatalf("%s: stored metadata of %s does not decode: %v", o, kv.Key, err)
		}
		m := &obj.Metadata
		if want := prefix + m.Namespace + "/" + m.Name; kv.Key != want {
			e.t.Fatalf("%s: object %s/%s stored under %s", o, m.Namespace, m.Name, kv.Key)
		}
		errs := validation.ValidateObjectMeta(m, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
		for _, p := range []string{"metadata.finalizers", "metadata.labels", "metadata.annotations"} {
			if nonString(gjson.GetBytes(kv.Value, p)) {
				errs = append(errs, field.Invalid(field.NewPath(p), gjson.GetBytes(kv.Value, p).Raw, "must be strings"))
			}
		}
		if len(errs) > 0 {
			e.t.Fatalf("%s: stored %s has invalid metadata: %v", o, kv.Key, errs.ToAggregate())
		}
	}
}

// snapshot is the revision of every key under the store's prefix.
func (e *fuzzEnv) snapshot() map[string]int64 {
	revs := map[string]int64{}
	for _, kv := range e.stored(e.s.Upkeep().Keys().Prefix) {
		revs[kv.Key] = kv.ModRevision
	}
	return revs
}

func (e *fuzzEnv) stored(prefix string) []storage.KeyValue {
	res, err := e.st.List(context.Background(), prefix, storage.ListOptions{})
	if err != nil {
		e.t.Fatalf("listing %s: %v", prefix, err)
	}
	return res.Items
}

// nonString reports whether a JSON array or object holds anything but
// strings.
func nonString(r gjson.Result) bool {
	bad := false
	r.ForEach(func(_, v gjson.Result) bool {
		bad = v.Type != gjson.String
		return !bad
	})
	return bad
}

// sameValue reports whether two JSON documents are the same value.
func sameValue(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
