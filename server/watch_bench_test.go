package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
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
				res, err := e.store.Create(context.Background(), rv, "bench", []byte(benchPayload(i)), engine.WriteOptions{})
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
// through HTTP: from the watch cache (resourceVersion=0) and, for
// comparison, the consistent read from etcd (resourceVersion unset).
func BenchmarkListHTTP10k(b *testing.B) {
	e := startWatchServer(b, watchcache.Config{})
	size := fill(b, e, 10000)
	b.Logf("objects of %d bytes", size)
	for _, tc := range []struct{ name, query string }{
		{"cache", "?resourceVersion=0"},
		{"etcd", ""},
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
	engine.Storage
	mu   sync.Mutex
	seen map[int64]time.Time
}

func (s *timedStorage) Watch(ctx context.Context, prefix string, after int64) <-chan engine.Event {
	in := s.Storage.Watch(ctx, prefix, after)
	out := make(chan engine.Event, 128)
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
// every delivery.
func BenchmarkWatchFanOut100(b *testing.B) {
	for _, pace := range []time.Duration{0, 5 * time.Millisecond} {
		name := "back-to-back"
		if pace > 0 {
			name = "every-" + pace.String()
		}
		b.Run(name, func(b *testing.B) { benchFanOut(b, 100, pace) })
	}
}

func benchFanOut(b *testing.B, watchers int, pace time.Duration) {
	ts := &timedStorage{seen: map[int64]time.Time{}}
	e := startWatchServerOn(b, watchcache.Config{}, nil, func(s engine.Storage) engine.Storage {
		ts.Storage = s
		return ts
	})
	start := e.create(b, "start", "red")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	var ready, done sync.WaitGroup
	counts := make([]chan int, watchers)
	for i := range watchers {
		counts[i] = make(chan int, 1)
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", e.URL+watchWidgets+"?watch=true&resourceVersion="+start, nil)
			resp, err := http.DefaultClient.Do(req)
			ready.Done()
			if err != nil {
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			var mine []time.Duration
			for sc.Scan() {
				now := time.Now()
				rev := gjson.GetBytes(sc.Bytes(), "object.metadata.resourceVersion").Int()
				mine = append(mine, now.Sub(ts.at(rev)))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	ready.Wait()
	rv := e.reg.Lookup("shop.example.com", "v1", "widgets")
	i := 0
	for b.Loop() {
		if _, err := e.store.Create(ctx, rv, "default", []byte(benchPayload(i)), engine.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		i++
		if pace > 0 {
			time.Sleep(pace)
		}
	}
	b.StopTimer()
	time.Sleep(500 * time.Millisecond) // the last events arrive
	cancel()
	done.Wait()
	slices.Sort(lat)
	if len(lat) < watchers*i {
		b.Fatalf("%d deliveries, want %d", len(lat), watchers*i)
	}
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}
