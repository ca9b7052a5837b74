package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// benchBody is a typical small object: the recorded create of w1.
const benchBody = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"tier":"gold"}},"spec":{"size":3,"tags":["a"]}}`

// BenchmarkCreatePrepare is the write pipeline without storage: decode,
// metadata, prune, default, validate, encode (a dry-run create).
func BenchmarkCreatePrepare(b *testing.B) {
	s := engine.NewStore(nil, engine.Options{})
	rv := widgets(b)
	ctx := context.Background()
	body := []byte(benchBody)
	opts := engine.WriteOptions{DryRun: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: body, Options: opts}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreate stores objects in the embedded etcd, from parallel
// clients.
func BenchmarkCreate(b *testing.B) {
	s, _ := newStore(b)
	rv := widgets(b)
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := []byte(widget(fmt.Sprintf("w%d", n.Add(1)), 3))
			if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkUpdate replaces one object in the embedded etcd again and
// again, each update carrying the resourceVersion the last one answered.
func BenchmarkUpdate(b *testing.B) {
	s, _ := newStore(b)
	rv := widgets(b)
	ctx := context.Background()
	cur := mustCreate(b, s, rv, "default", benchBody)
	ref := engine.Ref{Version: rv, Namespace: "default", Name: "w1"}
	b.ReportAllocs()
	size := 3
	for b.Loop() {
		size = 3 + (size+1)%5
		body := withRV(widget("w1", size), cur)
		res, err := s.Update(ctx, engine.WriteRequest{Ref: ref, Body: []byte(body)})
		if err != nil {
			b.Fatal(err)
		}
		cur = res.Object
	}
}

// BenchmarkGet reads one object from the embedded etcd, from parallel
// clients.
func BenchmarkGet(b *testing.B) {
	s, _ := newStore(b)
	rv := widgets(b)
	ctx := context.Background()
	mustCreate(b, s, rv, "default", benchBody)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkList lists 1,000 objects from the embedded etcd.
func BenchmarkList(b *testing.B) {
	s, _ := newStore(b)
	rv := widgets(b)
	ctx := context.Background()
	for i := range 1000 {
		mustCreate(b, s, rv, "default", widget(fmt.Sprintf("w%04d", i), 3))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPage lists the first 100 of 1,000 objects.
func BenchmarkListPage(b *testing.B) {
	s, _ := newStore(b)
	rv := widgets(b)
	ctx := context.Background()
	for i := range 1000 {
		mustCreate(b, s, rv, "default", widget(fmt.Sprintf("w%04d", i), 3))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

// payloads is the benchmark kind of `specd bench` (examples/bench): 20
// string fields of at most 256 characters.
func payloads(tb testing.TB) *schemas.ResourceVersion {
	props := make([]string, 20)
	for i := range props {
		props[i] = fmt.Sprintf(`"f%02d":{"type":"string","maxLength":256}`, i)
	}
	doc := `{"type":"object","properties":{"spec":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}}`
	r := &schemas.Resource{Group: "bench.specd.io", Kind: "Payload", ListKind: "PayloadList", Plural: "payloads",
		Scope: schemas.Namespaced, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, Schema: compile(tb, doc)}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

// payload is a Payload of about 1.7 KB, as `specd bench` sends.
func payload(name string) []byte {
	fields := make([]string, 20)
	for i := range fields {
		fields[i] = fmt.Sprintf(`"f%02d":%q`, i, strings.Repeat("x", 70))
	}
	return []byte(`{"apiVersion":"bench.specd.io/v1","kind":"Payload","metadata":{"name":"` + name + `"},"spec":{` +
		strings.Join(fields, ",") + `}}`)
}

// BenchmarkCreatePreparePayload is BenchmarkCreatePrepare with the 1.7 KB
// object of `specd bench`.
func BenchmarkCreatePreparePayload(b *testing.B) {
	s := engine.NewStore(nil, engine.Options{})
	rv := payloads(b)
	body := payload("p")
	opts := engine.WriteOptions{DryRun: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "bench"}, Body: body, Options: opts}); err != nil {
			b.Fatal(err)
		}
	}
}
