package server

import (
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/specd-io/specd/schemas"
)

// TestReadyzChecks: /readyz?verbose lists every check; a failing check
// makes specd unready unless it is informational.
func TestReadyzChecks(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	var pluginErr, etcdErr atomic.Pointer[error]
	check := func(p *atomic.Pointer[error]) func() error {
		return func() error {
			if e := p.Load(); e != nil {
				return *e
			}
			return nil
		}
	}
	reg := testRegistry()
	s := New(Config{Registry: func() *schemas.Registry { return reg }, Store: newFakeStore(), Ready: ready.Load,
		Logger: slog.New(slog.DiscardHandler), Checks: []Check{
			{Name: "plugin/ship-policy", Check: check(&pluginErr), Informational: true},
			{Name: "etcd", Check: check(&etcdErr)},
		}})
	steps := []struct {
		name           string
		set            func()
		code           int
		terse, verbose string
	}{
		{"all well", func() {}, 200, "ok",
			"[+]ping ok\n[+]ready ok\n[+]plugin/ship-policy ok\n[+]etcd ok\nreadyz check passed"},
		{"plugin down: still ready", func() { e := errors.New("exited: signal: killed (2 restarts)"); pluginErr.Store(&e) }, 200, "ok",
			"[+]ping ok\n[+]ready ok\n[!]plugin/ship-policy: exited: signal: killed (2 restarts) (informational: readiness holds)\n[+]etcd ok\nreadyz check passed"},
		{"a check that counts fails", func() { e := errors.New("unreachable"); etcdErr.Store(&e) }, 503, "not ready",
			"[+]ping ok\n[+]ready ok\n[!]plugin/ship-policy: exited: signal: killed (2 restarts) (informational: readiness holds)\n[-]etcd failed: unreachable\nreadyz check failed"},
		{"not ready", func() { etcdErr.Store(nil); pluginErr.Store(nil); ready.Store(false) }, 503, "not ready",
			"[+]ping ok\n[-]ready failed: not ready\n[+]plugin/ship-policy ok\n[+]etcd ok\nreadyz check failed"},
	}
	for _, st := range steps {
		st.set()
		if w := serve(t, s, request{path: "/readyz"}); w.Code != st.code || w.Body.String() != st.terse {
			t.Errorf("%s: /readyz = %d %q, want %d %q", st.name, w.Code, w.Body, st.code, st.terse)
		}
		if w := serve(t, s, request{path: "/readyz?verbose"}); w.Code != st.code || w.Body.String() != st.verbose {
			t.Errorf("%s: /readyz?verbose = %d\n%s\nwant %d\n%s", st.name, w.Code, w.Body, st.code, st.verbose)
		}
	}
}
