package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/resetconn"
)

// watchEnv is a real server on an embedded etcd with a watch cache.
type watchEnv struct {
	URL    string
	store  *engine.Store
	reg    *schemas.Registry
	srv    *httptest.Server
	server *Server
}

func startWatchServer(t testing.TB, cfg watchcache.Config) *watchEnv {
	t.Helper()
	return startWatchServerOn(t, cfg, nil, nil)
}

// startWatchServerOn is startWatchServer with the listener wrapped by wrap
// (when not nil).
func startWatchServerOn(t testing.TB, cfg watchcache.Config, wrap func(net.Listener) net.Listener,
	wrapStorage func(storage.Storage) storage.Storage) *watchEnv {
	t.Helper()
	return startWatchServerWith(t, cfg, wrap, wrapStorage, nil)
}

// startWatchServerWith is startWatchServerOn with the server's Config
// changed by configure, when not nil.
func startWatchServerWith(t testing.TB, cfg watchcache.Config, wrap func(net.Listener) net.Listener,
	wrapStorage func(storage.Storage) storage.Storage, configure func(*Config)) *watchEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, err := schemas.Load("../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	cli := etcdtest.Start(t)
	st := etcdstorage.New(cli)
	cfg.Logger = quiet
	var storage storage.Storage = st
	if wrapStorage != nil {
		storage = wrapStorage(st)
	}
	caches := watchcache.New(storage, cfg)
	t.Cleanup(caches.Close)
	store := engine.NewStore(storage, engine.Options{Logger: quiet, Cache: caches})
	scfg := Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    store,
		Logger:   quiet,
	}
	if configure != nil {
		configure(&scfg)
	}
	s := New(scfg)
	srv := httptest.NewUnstartedServer(s)
	if wrap != nil {
		srv.Listener = wrap(srv.Listener)
	}
	// As cmd/specd serves: a stalled client's connection is reset.
	srv.Listener = resetconn.Listener(srv.Listener)
	srv.Config.RegisterOnShutdown(s.CloseWatches)
	srv.Start()
	t.Cleanup(srv.Close)
	return &watchEnv{URL: srv.URL, srv: srv, server: s, store: store, reg: reg}
}

const watchWidgets = "/apis/shop.example.com/v1/namespaces/default/widgets"

func widgetJSON(name, color string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q,"labels":{"color":%q}},"spec":{"color":%q}}`, name, color, color)
}

// do sends one request and returns the body, failing on an unexpected
// code.
func (e *watchEnv) do(t testing.TB, method, path, body string, code int) string {
	t.Helper()
	req, err := http.NewRequest(method, e.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != code {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, code, b)
	}
	return string(b)
}

func (e *watchEnv) create(t testing.TB, name, color string) string {
	t.Helper()
	return gjson.Get(e.do(t, "POST", watchWidgets, widgetJSON(name, color), 201), "metadata.resourceVersion").Str
}

// stream is an open watch.
type stream struct {
	resp  *http.Response
	lines *bufio.Scanner
}

func (e *watchEnv) watch(t testing.TB, ctx context.Context, query string) *stream {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.URL+watchWidgets+"?watch=true&"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("watch ?%s: %d: %s", query, resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &stream{resp: resp, lines: sc}
}

// next returns the next event as "TYPE name" (or "TYPE rv" for a BOOKMARK)
// and the raw line; "" at the end of the stream.
func (s *stream) next(t testing.TB) (string, string) {
	t.Helper()
	if !s.lines.Scan() {
		return "", ""
	}
	line := s.lines.Text()
	if !json.Valid([]byte(line)) {
		t.Fatalf("not one JSON value per line: %q", line)
	}
	typ := gjson.Get(line, "type").Str
	switch typ {
	case "BOOKMARK":
		return typ + " " + gjson.Get(line, "object.metadata.resourceVersion").Str, line
	case "ERROR":
		return fmt.Sprintf("ERROR %d %s", gjson.Get(line, "object.code").Int(), gjson.Get(line, "object.reason").Str), line
	}
	return typ + " " + gjson.Get(line, "object.metadata.name").Str, line
}

func (s *stream) expect(t testing.TB, want ...string) []string {
	t.Helper()
	var lines []string
	for _, w := range want {
		got, line := s.next(t)
		if got != w {
			t.Fatalf("event %q, want %q (after %d events)", got, w, len(lines))
		}
		lines = append(lines, line)
	}
	return lines
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestWatchHTTP(t *testing.T) {
	e := startWatchServer(t, watchcache.Config{Window: 20, BookmarkInterval: 50 * time.Millisecond})
	first := e.create(t, "w0", "red")

	t.Run("stream shape", func(t *testing.T) {
		ctx := testCtx(t)
		s := e.watch(t, ctx, "resourceVersion="+first)
		if ct := s.resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		if s.resp.ContentLength != -1 || len(s.resp.TransferEncoding) == 0 {
			t.Errorf("watch answered with a length (%d), want chunked", s.resp.ContentLength)
		}
		rv := e.create(t, "wa", "red")
		obj := e.do(t, "GET", watchWidgets+"/wa", "", 200)
		obj = strings.Replace(obj, `"spec":{"color":"red"`, `"spec":{"color":"blue"`, 1)
		e.do(t, "PUT", watchWidgets+"/wa", obj, 200)
		e.do(t, "DELETE", watchWidgets+"/wa", "", 200)
		lines := s.expect(t, "ADDED wa", "MODIFIED wa", "DELETED wa")
		// As reference 51: the whole object with its resourceVersion.
		if got := gjson.Get(lines[0], "object.metadata.resourceVersion").Str; got != rv {
			t.Errorf("ADDED at %s, create answered %s", got, rv)
		}
		for _, l := range lines {
			if gjson.Get(l, "object.apiVersion").Str != "shop.example.com/v1" || gjson.Get(l, "object.kind").Str != "Widget" {
				t.Errorf("event object without apiVersion/kind: %s", l)
			}
		}
		mod, del := gjson.Get(lines[1], "object.metadata.resourceVersion").Int(), gjson.Get(lines[2], "object.metadata.resourceVersion").Int()
		if del <= mod || gjson.Get(lines[2], "object.spec.color").Str != "blue" {
			t.Errorf("DELETED should carry the last state at the delete's revision: %s", lines[2])
		}
	})

	t.Run("resourceVersion unset and 0 start with the objects", func(t *testing.T) {
		for _, q := range []string{"", "resourceVersion=0"} {
			ctx, cancel := context.WithCancel(testCtx(t))
			s := e.watch(t, ctx, q)
			s.expect(t, "ADDED w0")
			cancel()
		}
	})

	t.Run("bookmarks", func(t *testing.T) {
		ctx := testCtx(t)
		s := e.watch(t, ctx, "resourceVersion="+first+"&allowWatchBookmarks=true&fieldSelector=metadata.name%3Dnone")
		got, line := s.next(t)
		if !strings.HasPrefix(got, "BOOKMARK ") || gjson.Get(line, "object.kind").Str != "Widget" {
			t.Fatalf("first event %s, want a bookmark", line)
		}
	})

	t.Run("sendInitialEvents", func(t *testing.T) {
		ctx := testCtx(t)
		for _, rv := range []string{"", "0", first} {
			s := e.watch(t, ctx, "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion="+rv)
			lines := s.expect(t, "ADDED w0")
			got, line := s.next(t)
			for strings.HasPrefix(got, "ADDED") {
				lines = append(lines, line)
				got, line = s.next(t)
			}
			// As reference 52: a BOOKMARK annotated initial-events-end.
			if !strings.HasPrefix(got, "BOOKMARK") || gjson.Get(line, `object.metadata.annotations.k8s\.io/initial-events-end`).Str != "true" {
				t.Fatalf("rv %q: after the objects %s, want the initial-events-end bookmark", rv, line)
			}
			if gjson.Get(line, "object.metadata.resourceVersion").Int() < gjson.Get(lines[0], "object.metadata.resourceVersion").Int() {
				t.Errorf("bookmark %s before the objects it ends", line)
			}
		}
	})

	t.Run("one object by name", func(t *testing.T) {
		ctx := testCtx(t)
		s := e.watch(t, ctx, "fieldSelector=metadata.name%3Dw1")
		e.create(t, "w2", "red")
		e.create(t, "w1", "red")
		s.expect(t, "ADDED w1")
	})

	t.Run("label selector: leaving the selection is a DELETED", func(t *testing.T) {
		ctx := testCtx(t)
		rv := e.create(t, "sel", "red")
		s := e.watch(t, ctx, "resourceVersion="+rv+"&labelSelector=color%3Dred")
		obj := e.do(t, "GET", watchWidgets+"/sel", "", 200)
		e.do(t, "PUT", watchWidgets+"/sel", strings.Replace(obj, `"color":"red"}`, `"color":"green"}`, 1), 200)
		e.create(t, "sel2", "green")
		e.create(t, "sel3", "red")
		s.expect(t, "DELETED sel", "ADDED sel3")
	})

	t.Run("timeoutSeconds ends the stream", func(t *testing.T) {
		start := time.Now()
		s := e.watch(t, testCtx(t), "timeoutSeconds=1&resourceVersion="+first)
		for {
			if got, _ := s.next(t); got == "" {
				break
			}
		}
		if d := time.Since(start); d < time.Second || d > 10*time.Second {
			t.Errorf("watch with timeoutSeconds=1 lasted %v", d)
		}
	})

	t.Run("too old resourceVersion is a 410 ERROR event", func(t *testing.T) {
		for i := range 25 {
			e.create(t, fmt.Sprintf("old-%d", i), "red")
		}
		// A consistent list is served once the cache has caught up with
		// etcd; until then its window may still hold first's successor.
		e.do(t, "GET", watchWidgets, "", 200)
		s := e.watch(t, testCtx(t), "resourceVersion="+first)
		s.expect(t, "ERROR 410 Expired")
		if got, _ := s.next(t); got != "" {
			t.Errorf("event after the ERROR: %s", got)
		}
	})

	t.Run("bad parameters", func(t *testing.T) {
		e.do(t, "GET", watchWidgets+"?watch=true&resourceVersion=abc", "", 400)
		e.do(t, "GET", watchWidgets+"?watch=true&sendInitialEvents=true", "", 422)
		e.do(t, "GET", watchWidgets+"?watch=true&fieldSelector=spec.nothing%3Dx", "", 400)
	})
}

// TestWatchEndsOnShutdown: Shutdown does not wait for open watches.
func TestWatchEndsOnShutdown(t *testing.T) {
	e := startWatchServer(t, watchcache.Config{})
	e.create(t, "w", "red")
	s := e.watch(t, testCtx(t), "")
	s.expect(t, "ADDED w")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an open watch: %v", err)
	}
	if got, _ := s.next(t); got != "" {
		t.Errorf("event after shutdown: %s", got)
	}
}

func TestListFromCache(t *testing.T) {
	e := startWatchServer(t, watchcache.Config{})
	var rv string
	for i := range 5 {
		rv = e.create(t, fmt.Sprintf("l%d", i), "red")
	}
	// resourceVersion=0 may be served a moment behind: wait until the
	// cache has seen the last create.
	want := gjson.Parse(rv).Int()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		body := e.do(t, "GET", watchWidgets+"?resourceVersion=0", "", 200)
		if gjson.Get(body, "metadata.resourceVersion").Int() >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cache did not reach %d: %s", want, gjson.Get(body, "metadata").Raw)
		}
	}
	names := func(body string) string {
		var out []string
		for _, n := range gjson.Get(body, "items.#.metadata.name").Array() {
			out = append(out, n.Str)
		}
		return strings.Join(out, ",")
	}
	tests := map[string]struct {
		query, want string
		code        int
	}{
		"consistent":                {query: "", want: "l0,l1,l2,l3,l4"},
		"any":                       {query: "resourceVersion=0", want: "l0,l1,l2,l3,l4"},
		"not older than":            {query: "resourceVersion=" + rv + "&resourceVersionMatch=NotOlderThan", want: "l0,l1,l2,l3,l4"},
		"exact":                     {query: "resourceVersion=" + rv + "&resourceVersionMatch=Exact", want: "l0,l1,l2,l3,l4"},
		"any with a limit":          {query: "resourceVersion=0&limit=2", want: "l0,l1"},
		"any with a selector":       {query: "resourceVersion=0&fieldSelector=metadata.name%3Dl3", want: "l3"},
		"match without a version":   {query: "resourceVersionMatch=NotOlderThan", code: 422},
		"exact at 0":                {query: "resourceVersion=0&resourceVersionMatch=Exact", code: 422},
		"sendInitialEvents on list": {query: "sendInitialEvents=true", code: 422},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code := tc.code
			if code == 0 {
				code = 200
			}
			body := e.do(t, "GET", watchWidgets+"?"+tc.query, "", code)
			if code == 200 && names(body) != tc.want {
				t.Errorf("items %s, want %s", names(body), tc.want)
			}
		})
	}
	t.Run("pages continue at the cache's snapshot", func(t *testing.T) {
		first := e.do(t, "GET", watchWidgets+"?resourceVersion=0&limit=2", "", 200)
		snap := gjson.Get(first, "metadata.resourceVersion").Str
		e.create(t, "l5", "red")
		token := gjson.Get(first, "metadata.continue").Str
		if token == "" || gjson.Get(first, "metadata.remainingItemCount").Int() != 3 {
			t.Fatalf("first page metadata %s", gjson.Get(first, "metadata").Raw)
		}
		rest := e.do(t, "GET", watchWidgets+"?limit=10&continue="+token, "", 200)
		if names(rest) != "l2,l3,l4" || gjson.Get(rest, "metadata.resourceVersion").Str != snap {
			t.Errorf("second page %s at %s, want l2,l3,l4 at %s", names(rest), gjson.Get(rest, "metadata.resourceVersion").Str, snap)
		}
	})
}

// TestWatchNoMinRequestTimeout: with kube-apiserver's
// --min-request-timeout 0, a watch without timeoutSeconds (or with 0)
// ends at once with an empty 200 stream, as kube-apiserver's does; one
// with a timeoutSeconds is served.
func TestWatchNoMinRequestTimeout(t *testing.T) {
	e := startWatchServerWith(t, watchcache.Config{}, nil, nil, func(c *Config) { c.MinRequestTimeout = NoMinRequestTimeout })
	e.create(t, "w", "red")
	for _, query := range []string{"", "timeoutSeconds=0"} {
		s := e.watch(t, testCtx(t), query)
		if got, line := s.next(t); got != "" {
			t.Errorf("watch ?%s: event %s, want the stream to end at once", query, line)
		}
	}
	s := e.watch(t, testCtx(t), "timeoutSeconds=60")
	s.expect(t, "ADDED w")
}

// TestWatchNegativeTimeout: a negative timeoutSeconds is accepted and the
// stream ends at once, empty, as kube-apiserver's does (its watch
// context's deadline is then in the past).
func TestWatchNegativeTimeout(t *testing.T) {
	e := startWatchServer(t, watchcache.Config{})
	e.create(t, "w", "red")
	s := e.watch(t, testCtx(t), "timeoutSeconds=-5")
	if got, line := s.next(t); got != "" {
		t.Errorf("watch ?timeoutSeconds=-5: event %s, want the stream to end at once", line)
	}
	e.do(t, "GET", watchWidgets+"?watch=true&timeoutSeconds=soon", "", 400)
}
