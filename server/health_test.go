package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/version"

	"github.com/specd-io/specd/schemas"
)

func TestHealth(t *testing.T) {
	var ready atomic.Bool
	reg := testRegistry()
	s := New(Config{Registry: func() *schemas.Registry { return reg }, Store: newFakeStore(), Ready: ready.Load,
		Logger: slog.New(slog.DiscardHandler)})
	for path, want := range map[string]int{"/healthz": 200, "/livez": 200, "/readyz": 503} {
		if w := serve(t, s, request{path: path}); w.Code != want {
			t.Errorf("%s: code %d, want %d", path, w.Code, want)
		}
	}
	ready.Store(true)
	if w := serve(t, s, request{path: "/readyz"}); w.Code != 200 || w.Body.String() != "ok" {
		t.Errorf("/readyz when ready: %d %q", w.Code, w.Body)
	}
}

func TestVersion(t *testing.T) {
	reg := testRegistry()
	s := New(Config{Registry: func() *schemas.Registry { return reg }, Store: newFakeStore(),
		Version: version.Info{GitVersion: "v0.1.0", GitCommit: "abc", BuildDate: "2026-11-21T09:30:54Z"}})
	w := serve(t, s, request{path: "/version"})
	var got version.Info
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%v: %s", err, w.Body)
	}
	want := version.Info{Major: "0", Minor: "1", GitVersion: "v0.1.0", GitCommit: "abc", GitTreeState: "clean",
		BuildDate: "2026-11-21T09:30:54Z", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if got != want {
		t.Errorf("version\n got %+v\nwant %+v", got, want)
	}
}

func TestOneDebugLinePerRequest(t *testing.T) {
	var buf bytes.Buffer
	reg := testRegistry()
	s := New(Config{Registry: func() *schemas.Registry { return reg }, Store: seeded(t),
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	serve(t, s, request{path: widgetsPath + "/w1"})
	serve(t, s, request{path: widgetsPath + "/nope"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log:\n%s", buf.String())
	}
	for i, want := range []string{"code=200", "code=404"} {
		for _, part := range []string{"level=DEBUG", "method=GET", "path=" + widgetsPath, want, "duration="} {
			if !strings.Contains(lines[i], part) {
				t.Errorf("line %q lacks %q", lines[i], part)
			}
		}
	}
}

func TestInternalErrorsAreLogged(t *testing.T) {
	var buf bytes.Buffer
	store := seeded(t)
	store.err = errString("etcd: unavailable")
	reg := testRegistry()
	s := New(Config{Registry: func() *schemas.Registry { return reg }, Store: store,
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if w := serve(t, s, request{path: widgetsPath + "/w1"}); w.Code != http.StatusInternalServerError {
		t.Fatalf("code %d", w.Code)
	}
	if !strings.Contains(buf.String(), "level=ERROR") || !strings.Contains(buf.String(), "etcd: unavailable") {
		t.Errorf("log: %s", buf.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestMetricsEndpoint(t *testing.T) {
	reg := testRegistry()
	s := New(Config{Registry: func() *schemas.Registry { return reg }, Store: newFakeStore()})
	w := serve(t, s, request{path: "/metrics"})
	if w.Code != 200 || !strings.Contains(w.Body.String(), "go_goroutines") {
		t.Errorf("/metrics: %d %.200q", w.Code, w.Body)
	}
	if w := serve(t, s, request{method: "POST", path: "/metrics"}); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %d, want 405", w.Code)
	}
}

func TestProfiling(t *testing.T) {
	reg := testRegistry()
	on := New(Config{Registry: func() *schemas.Registry { return reg }, Store: newFakeStore(), Profiling: true})
	w := serve(t, on, request{path: "/debug/pprof/heap"})
	if body := w.Body.Bytes(); w.Code != 200 || len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
		t.Errorf("/debug/pprof/heap: %d %.100q, want a gzipped profile", w.Code, w.Body)
	}
	if w := serve(t, on, request{path: "/debug/pprof/"}); w.Code != 200 || !strings.Contains(w.Body.String(), "goroutine") {
		t.Errorf("/debug/pprof/: %d %.200q", w.Code, w.Body)
	}
	if w := serve(t, on, request{method: "POST", path: "/debug/pprof/heap"}); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /debug/pprof/heap: %d, want 405", w.Code)
	}
	off := New(Config{Registry: func() *schemas.Registry { return reg }, Store: newFakeStore()})
	if w := serve(t, off, request{path: "/debug/pprof/heap"}); w.Code != http.StatusNotFound {
		t.Errorf("/debug/pprof/heap without Profiling: %d, want 404", w.Code)
	}
}
