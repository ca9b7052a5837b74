package filters_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/filters"
	"github.com/specd-io/specd/server/filters/fairness"
)

const benchWidgets = "/apis/shop.example.com/v1/namespaces/default/widgets"

// BenchmarkFairness: alice floods creates of widgets from 192 clients at
// once (fewer than --max-mutating-requests-inflight, so that without
// fairness none of hers is refused and spins) while bob gets one widget
// again and again, through specd's real server, watch cache and etcd,
// behind the chain with kube-apiserver's default limits
// (--max-requests-inflight 400, --max-mutating-requests-inflight 200),
// with and without priority and fairness; no-flood is bob alone. It
// reports the median and 99th percentile of bob's gets (p50-ns, p99-ns),
// how many of them were refused, and alice's creates a second and
// refusals.
func BenchmarkFairness(b *testing.B) {
	for _, mode := range []string{"no-flood", "max-inflight", "priority-and-fairness"} {
		b.Run(mode, func(b *testing.B) {
			cfg := filters.Config{MaxRequestsInFlight: 400, MaxMutatingRequestsInFlight: 200, RequestTimeout: time.Minute}
			flooders := 192
			switch mode {
			case "no-flood":
				flooders = 0
			case "priority-and-fairness":
				cfg.Fairness = runFairness(b, 600)
			}
			benchFlood(b, cfg, flooders)
		})
	}
}

func runFairness(b testing.TB, limit int) *fairness.Controller {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	fc := fairness.New(limit)
	if err := fc.Run(ctx); err != nil {
		b.Fatal(err)
	}
	return fc
}

// benchServer serves the example schemas from a new etcd behind the chain
// of cfg, with alice and bob as token users (not system:masters, whom
// priority and fairness exempts) and every request allowed.
func benchServer(b testing.TB, cfg filters.Config) string {
	s, _, _ := exampleServer(b, "../../examples/schemas")
	cfg.Authenticator = group.NewAuthenticatedGroupAdder(bearertoken.New(tokenfile.New(map[string]*user.DefaultInfo{
		"alice-token": {Name: "alice", UID: "1"}, "bob-token": {Name: "bob", UID: "2"},
	})))
	srv := httptest.NewServer(filters.Wrap(s, cfg))
	b.Cleanup(srv.Close)
	return srv.URL
}

func benchFlood(b *testing.B, cfg filters.Config, flooders int) {
	url := benchServer(b, cfg)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: flooders + 1}}
	if code := request(client, "POST", url+benchWidgets, "bob-token", widget("mine")); code != http.StatusCreated {
		b.Fatalf("create bob's widget: %d", code)
	}
	stop := make(chan struct{})
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for f := range flooders {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				switch request(client, "POST", url+benchWidgets, "alice-token", widget(fmt.Sprintf("f%d-%d", f, i))) {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
				}
			}
		})
	}
	time.Sleep(time.Second) // the flood is on
	took := make([]time.Duration, b.N)
	var bobRefused int
	b.ResetTimer()
	began := time.Now()
	for i := range b.N {
		start := time.Now()
		code := request(client, "GET", url+benchWidgets+"/mine", "bob-token", "")
		took[i] = time.Since(start)
		if code == http.StatusTooManyRequests {
			bobRefused++
		} else if code != http.StatusOK {
			b.Fatalf("bob's get: %d", code)
		}
	}
	b.StopTimer()
	elapsed := time.Since(began)
	close(stop)
	wg.Wait()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(bobRefused), "bob-429s")
	b.ReportMetric(float64(created.Load())/elapsed.Seconds(), "alice-creates/s")
	b.ReportMetric(float64(refused.Load()), "alice-429s")
}

func widget(name string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"color":"red"}}`, name)
}

// request sends one request and returns its code.
func request(client *http.Client, method, url, token, body string) int {
	req, _ := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestLimitsOnTheRealServer: with one write in flight, 32 creates at once
// through specd's server and etcd get some 429 Statuses with Retry-After,
// and an open watch does not take the one read seat from a get.
func TestLimitsOnTheRealServer(t *testing.T) {
	url := benchServer(t, filters.Config{MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1, RequestTimeout: time.Minute})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 40}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+benchWidgets+"?watch=true", nil)
	req.Header.Set("Authorization", "Bearer bob-token")
	watch, err := client.Do(req)
	if err != nil || watch.StatusCode != http.StatusOK {
		t.Fatalf("watch: %v %v", watch, err)
	}
	defer watch.Body.Close()
	var wg sync.WaitGroup
	var refused atomic.Int64
	var refusal atomic.Value
	for i := range 32 {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, "POST", url+benchWidgets, strings.NewReader(widget(fmt.Sprintf("w%d", i))))
			req.Header.Set("Authorization", "Bearer alice-token")
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == http.StatusTooManyRequests {
				refused.Add(1)
				refusal.Store(resp.Header.Get("Retry-After") + " " + string(body))
			}
		})
	}
	wg.Wait()
	if refused.Load() == 0 {
		t.Fatal("32 creates at once past a limit of 1: none refused")
	}
	if got := refusal.Load().(string); !strings.HasPrefix(got, "1 ") || !strings.Contains(got, `"reason":"TooManyRequests"`) {
		t.Errorf("refusal: %s, want Retry-After 1 and a TooManyRequests Status", got)
	}
	if code := request(client, "GET", url+benchWidgets, "bob-token", ""); code != http.StatusOK {
		t.Errorf("a list beside the open watch: %d", code)
	}
	t.Logf("%d of 32 creates refused", refused.Load())
}

// exampleServer is specd's server on the schemas of dir, stored in a new
// etcd with watch caches, before any chain; with its store and registry.
func exampleServer(tb testing.TB, dir string) (*server.Server, *engine.Store, *schemas.Registry) {
	tb.Helper()
	reg, err := schemas.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	st := etcdstorage.New(etcdtest.Start(tb))
	caches := watchcache.New(st, watchcache.Config{Logger: quiet})
	tb.Cleanup(caches.Close)
	store := engine.NewStore(st, engine.Options{Cache: caches, Logger: quiet})
	return server.New(server.Config{Registry: func() *schemas.Registry { return reg }, Store: store, Logger: quiet}), store, reg
}
