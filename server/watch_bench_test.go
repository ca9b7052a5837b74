package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
)

// benchPayload is a widget of about 1.7 KB of JSON as stored.
func benchPayload(i int) string {
	notes := strings.Repeat(string(rune('a'+i%26)), 1300)
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"obj-%05d","labels":{"app":"bench"}},"spec":{"color":"red","notes":%q}}`, i, notes)
}

// fill creates n widgets in namespace bench through the engine, 8 at a
// time, and returns the size of one as served.
func fill(b *testing.B, e *watchEnv, n int) int {
	rv := e.reg.Lookup("shop.example.com", "v1", "widgets")
	var wg sync.WaitGroup
	var size int
	var once sync.Once
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				res, err := e.store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "bench"}, Body: []byte(benchPayload(i)), Options: engine.WriteOptions{}})
				if err != nil {
					b.Error(err)
					return
				}
				once.Do(func() { size = len(res.Object) })
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return size
}

// BenchmarkListHTTP10k is a full list of 10,000 widgets of about 1.7 KB
// through HTTP: from the watch cache (resourceVersion=0); the consistent
// read (resourceVersion unset), from the cache once a progress request
// proved it current; and, for comparison, from etcd (Exact, at the
// current revision).
func BenchmarkListHTTP10k(b *testing.B) {
	e := startWatchServer(b, watchcache.Config{})
	size := fill(b, e, 10000)
	b.Logf("objects of %d bytes", size)
	head, err := http.Get(e.URL + "/apis/shop.example.com/v1/namespaces/bench/widgets?limit=1")
	if err != nil {
		b.Fatal(err)
	}
	page, _ := io.ReadAll(head.Body)
	head.Body.Close()
	current := gjson.GetBytes(page, "metadata.resourceVersion").String()
	for _, tc := range []struct{ name, query string }{
		{"cache", "?resourceVersion=0"},
		{"consistent", ""},
		{"etcd", "?resourceVersionMatch=Exact&resourceVersion=" + current},
	} {
		b.Run(tc.name, func(b *testing.B) {
			url := e.URL + "/apis/shop.example.com/v1/namespaces/bench/widgets" + tc.query
			var n int64
			for b.Loop() {
				resp, err := http.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				n, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
			b.SetBytes(n)
		})
	}
}

// timedStorage notes when the watch cache receives each revision from
// etcd, so that delivery is timed from there to the watcher.
type timedStorage struct {
	storage.Storage
	mu   sync.Mutex
	seen map[int64]time.Time
}

func (s *timedStorage) Watch(ctx context.Context, prefix string, after int64) <-chan storage.Event {
	in := s.Storage.Watch(ctx, prefix, after)
	out := make(chan storage.Event, 128)
	go func() {
		defer close(out)
		for ev := range in {
			s.mu.Lock()
			s.seen[ev.Revision] = time.Now()
			s.mu.Unlock()
			out <- ev
		}
	}()
	return out
}

func (s *timedStorage) at(rev int64) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[rev]
}

// BenchmarkWatchFanOut100 writes one widget per iteration with 100 HTTP
// watchers open and reports how long each event took from the cache's
// receipt (from etcd) to a watcher's decoded line: p50, p99 and max over
// every delivery. The watchers run in this process ("in-process") or, as
// real clients do, in another one ("readers-apart": this test binary run
// again as a reader, see TestMain), so that the server's share of the two
// cores is not taken by the benchmark's own readers' HTTP stack.
//
// "floor" is the yardstick for the paced case: the same readers in their
// own process, fed by the least a Go HTTP server can do (benchFanOutFloor)
// - no etcd, no cache, no engine, the event's bytes built once and written
// by one goroutine per watcher. What it measures is the machine's own cost
// of the fan-out (the loopback TCP send and receive of 100 connections and
// the readers), which specd cannot go below.
func BenchmarkWatchFanOut100(b *testing.B) {
	for _, pace := range []time.Duration{0, 5 * time.Millisecond} {
		name := "back-to-back"
		if pace > 0 {
			name = "every-" + pace.String()
		}
		for _, readers := range []struct {
			name  string
			start startReaders
		}{{"in-process", readersInProcess}, {"readers-apart", readersApart}} {
			b.Run(name+"/"+readers.name, func(b *testing.B) { benchFanOut(b, 100, pace, readers.start) })
		}
		if pace > 0 {
			b.Run(name+"/floor", func(b *testing.B) { benchFanOutFloor(b, 100, pace, readersApart) })
		}
	}
}

// delivery is one event line a watcher read: its resourceVersion and the
// wall-clock time it was read at (comparable across processes).
type delivery struct {
	rev int64
	at  int64 // UnixNano
}

// startReaders opens n watches of url and returns a function that ends
// them and returns every delivery.
type startReaders func(b *testing.B, url string, n int) (stop func() []delivery)

// readerCPU is the CPU time the last readersApart process used.
var readerCPU time.Duration

// readersInProcess runs the watchers as goroutines of this process.
func readersInProcess(b *testing.B, url string, n int) func() []delivery {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var all []delivery
	var ready, done sync.WaitGroup
	for range n {
		ready.Add(1)
		done.Go(func() {
			mine := readWatch(ctx, url, ready.Done)
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	ready.Wait()
	return func() []delivery {
		cancel()
		done.Wait()
		return all
	}
}

// readWatch reads one watch until ctx ends, noting each line's
// resourceVersion and arrival; opened is called once the stream is open.
func readWatch(ctx context.Context, url string, opened func()) []delivery {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	opened()
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var mine []delivery
	for sc.Scan() {
		at := time.Now().UnixNano()
		mine = append(mine, delivery{rev: gjson.GetBytes(sc.Bytes(), "object.metadata.resourceVersion").Int(), at: at})
	}
	return mine
}

// readerEnv names the environment variables that make this test binary a
// watch reader (TestMain): the URL to watch and how many watches to open.
const (
	readerURLEnv   = "SPECD_BENCH_WATCH_URL"
	readerCountEnv = "SPECD_BENCH_WATCHERS"
)

// readersApart runs the watchers in a child process: this test binary,
// which TestMain turns into a reader. The child prints "ready" once every
// watch is open, reads until its stdin closes, then prints each delivery
// as "rev unixnano". It runs with GOMAXPROCS=1, as one client process
// holding many watches would be configured to leave the cores it shares
// with the server to the server.
func readersApart(b *testing.B, url string, n int) func() []delivery {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), readerURLEnv+"="+url, readerCountEnv+"="+strconv.Itoa(n), "GOMAXPROCS=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	out := bufio.NewScanner(stdout)
	if !out.Scan() || out.Text() != "ready" {
		_ = cmd.Process.Kill()
		b.Fatalf("watch reader did not start: %q", out.Text())
	}
	return func() []delivery {
		stdin.Close()
		var all []delivery
		for out.Scan() {
			var d delivery
			if _, err := fmt.Sscan(out.Text(), &d.rev, &d.at); err != nil {
				b.Fatalf("watch reader: %q: %v", out.Text(), err)
			}
			all = append(all, d)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("watch reader: %v", err)
		}
		readerCPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return all
	}
}

// runWatchReader is the child of readersApart.
func runWatchReader(url string, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var all []delivery
	var ready, done sync.WaitGroup
	for range n {
		ready.Add(1)
		done.Go(func() {
			mine := readWatch(ctx, url, ready.Done)
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	ready.Wait()
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	done.Wait()
	w := bufio.NewWriter(os.Stdout)
	for _, d := range all {
		fmt.Fprintln(w, d.rev, d.at)
	}
	_ = w.Flush()
}

func benchFanOut(b *testing.B, watchers int, pace time.Duration, start startReaders) {
	ts := &timedStorage{seen: map[int64]time.Time{}}
	e := startWatchServerOn(b, watchcache.Config{}, nil, func(s storage.Storage) storage.Storage {
		ts.Storage = s
		return ts
	})
	first := e.create(b, "start", "red")
	stop := start(b, e.URL+watchWidgets+"?watch=true&resourceVersion="+first, watchers)
	rv := e.reg.Lookup("shop.example.com", "v1", "widgets")
	i := 0
	for b.Loop() {
		if _, err := e.store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(benchPayload(i)), Options: engine.WriteOptions{}}); err != nil {
			b.Fatal(err)
		}
		i++
		if pace > 0 {
			time.Sleep(pace)
		}
	}
	b.StopTimer()
	time.Sleep(500 * time.Millisecond) // the last events arrive
	reportDeliveries(b, stop(), watchers*i, ts.at)
}

// benchFanOutFloor is the yardstick of BenchmarkWatchFanOut100: an HTTP
// server that does nothing but copy each event, built once, to every
// watcher's stream, as specd's watch handler does (one goroutine per
// watch, a chunked response, one flush per event), timed from the moment
// the event is handed to the watchers' goroutines.
func benchFanOutFloor(b *testing.B, watchers int, pace time.Duration, start startReaders) {
	var mu sync.Mutex
	subscribers := map[chan []byte]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		events := make(chan []byte, 16)
		mu.Lock()
		subscribers[events] = true
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(subscribers, events)
			mu.Unlock()
		}()
		rc := http.NewResponseController(w)
		sw := startStream(w, rc, false, 0)
		for {
			select {
			case obj := <-events:
				if sw.event("ADDED", obj, true) != nil {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	stop := start(b, srv.URL, watchers)
	var sentMu sync.Mutex
	sent := map[int64]time.Time{}
	i := 0
	for b.Loop() {
		rev := int64(i + 2)
		obj := servedWidget(i, rev)
		mu.Lock()
		sentMu.Lock()
		sent[rev] = time.Now()
		sentMu.Unlock()
		for events := range subscribers {
			events <- obj
		}
		mu.Unlock()
		i++
		time.Sleep(pace)
	}
	b.StopTimer()
	time.Sleep(500 * time.Millisecond) // the last events arrive
	reportDeliveries(b, stop(), watchers*i, func(rev int64) time.Time {
		sentMu.Lock()
		defer sentMu.Unlock()
		return sent[rev]
	})
}

// servedWidget is benchPayload(i) with the metadata specd adds when it
// stores and serves one: the bytes of one watch event of benchFanOut.
func servedWidget(i int, rev int64) []byte {
	obj := []byte(benchPayload(i))
	for _, f := range []struct {
		path  string
		value any
	}{
		{"metadata.namespace", "default"},
		{"metadata.uid", "9b0a4f53-6f0e-4d8c-9a57-1c3f0e2b7d41"},
		{"metadata.resourceVersion", strconv.FormatInt(rev, 10)},
		{"metadata.generation", 1},
		{"metadata.creationTimestamp", "2026-11-21T12:00:00Z"},
		{"metadata.managedFields", []map[string]any{{
			"manager": "bench", "operation": "Update", "apiVersion": "shop.example.com/v1",
			"time": "2026-11-21T12:00:00Z", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{"f:app": map[string]any{}}},
				"f:spec": map[string]any{"f:color": map[string]any{}, "f:notes": map[string]any{}}},
		}}},
	} {
		obj, _ = sjson.SetBytes(obj, f.path, f.value)
	}
	return obj
}

// reportDeliveries reports p50, p99 and max of the deliveries' latencies
// from sentAt(their revision), after checking that want arrived.
func reportDeliveries(b *testing.B, deliveries []delivery, want int, sentAt func(rev int64) time.Time) {
	if len(deliveries) < want {
		b.Fatalf("%d deliveries, want %d", len(deliveries), want)
	}
	lat := make([]time.Duration, len(deliveries))
	for j, d := range deliveries {
		sent := sentAt(d.rev)
		if sent.IsZero() {
			b.Fatalf("a delivery of revision %d, which was not sent", d.rev)
		}
		lat[j] = time.Duration(d.at - sent.UnixNano())
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	if readerCPU > 0 {
		b.ReportMetric(float64(readerCPU.Nanoseconds())/1000/float64(len(deliveries)), "reader-cpu-us/delivery")
		readerCPU = 0
	}
}
