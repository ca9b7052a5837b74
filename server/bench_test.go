package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// constStore answers every read with fixed bytes, so benchmarks measure
// the server alone.
type constStore struct {
	engine.Objects
	object, list []byte
}

func (c constStore) Get(context.Context, engine.Ref) ([]byte, error) {
	return c.object, nil
}

func (c constStore) List(context.Context, engine.Ref, engine.ListRequest) ([]byte, error) {
	return c.list, nil
}

// benchWidget is a widget as the engine stores it, managed fields included
// (about 1 KiB).
func benchWidget(i int) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"creationTimestamp":"2026-11-21T10:19:21Z","generation":1,"labels":{"tier":"gold"},"managedFields":[{"apiVersion":"shop.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:tier":{}}},"f:spec":{".":{},"f:color":{},"f:size":{},"f:tags":{}}},"manager":"kubectl-create","operation":"Update","time":"2026-11-21T10:19:21Z"}],"name":"widget-%05d","namespace":"default","resourceVersion":"%d","uid":"56076233-20be-46bc-883c-19b9d79%05d"},"spec":{"color":"red","size":%d,"tags":["a","b"]},"status":{"ready":true}}`, i, 100+i, i, i%10+1)
}

func benchServer(b *testing.B, n int) *Server {
	b.Helper()
	items := make([]string, n)
	for i := range items {
		items[i] = benchWidget(i)
	}
	list := `{"apiVersion":"shop.example.com/v1","items":[` + strings.Join(items, ",") +
		`],"kind":"WidgetList","metadata":{"continue":"","resourceVersion":"999"}}`
	reg := testRegistry()
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    constStore{object: []byte(benchWidget(1)), list: []byte(list)},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Now:      func() time.Time { return testNow },
	})
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

func benchRequest(b *testing.B, s *Server, path, accept string) {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		s.ServeHTTP(w, r)
	}
}

// BenchmarkGet is the hot read path: route, resolve, negotiate, write the
// stored bytes.
func BenchmarkGet(b *testing.B) {
	benchRequest(b, benchServer(b, 1), widgetsPath+"/widget-00001", "application/json")
}

func BenchmarkGetKubectlAccept(b *testing.B) {
	benchRequest(b, benchServer(b, 1), widgetsPath+"/widget-00001", "application/json, */*")
}

func BenchmarkList500(b *testing.B) {
	benchRequest(b, benchServer(b, 500), widgetsPath, "")
}

// BenchmarkTable500 renders a Table of 500 widgets, as kubectl get asks.
func BenchmarkTable500(b *testing.B) {
	benchRequest(b, benchServer(b, 500), widgetsPath, acceptTable)
}

func BenchmarkDiscoveryAggregated(b *testing.B) {
	benchRequest(b, benchServer(b, 1), "/apis", kubectlDiscoveryAccept)
}

func (c constStore) Create(context.Context, engine.WriteRequest) (engine.Result, error) {
	return engine.Result{Object: c.object}, nil
}

// BenchmarkCreate is the write path around the store: read the body,
// answer 201 with the stored object.
func BenchmarkCreate(b *testing.B) {
	s := benchServer(b, 1)
	body := benchWidget(2)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		r := httptest.NewRequest(http.MethodPost, widgetsPath, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(w, r)
	}
}

// BenchmarkNotFound answers a Status: the error path every 4xx takes.
func BenchmarkNotFound(b *testing.B) {
	benchRequest(b, benchServer(b, 1), "/apis/shop.example.com/v1/namespaces/default/gadgets", "")
}
