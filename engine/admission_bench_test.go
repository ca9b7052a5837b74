package engine_test

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/schemas"
)

// shipPolicyHost builds examples/plugins/ship-policy and returns a host of
// it, closed when b ends.
func shipPolicyHost(b *testing.B) *plugins.Host {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "ship-policy"), "./examples/plugins/ship-policy")
	cmd.Dir = filepath.Join("..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build ship-policy: %v\n%s", err, out)
	}
	catalog, err := plugins.OpenCatalog(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	h := plugins.NewHost(plugins.HostConfig{Catalog: catalog, Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(h.Close)
	return h
}

// benchShips is the example Ship with the hooks given ("" for none).
func benchShips(b *testing.B, def, validate string) *schemas.ResourceVersion {
	b.Helper()
	reg, err := schemas.Load(filepath.Join("..", "examples", "schemas"))
	if err != nil {
		b.Fatal(err)
	}
	rv := *reg.Lookup("fleet.example.com", "v1", "ships")
	if def == "" && validate == "" {
		rv.Hooks = nil
	} else {
		h := *rv.Hooks
		h.Default, h.Validate = def, validate
		rv.Hooks = &h
	}
	res := *rv.Resource
	res.Versions = []*schemas.ResourceVersion{&rv}
	rv.Resource = &res
	return &rv
}

var benchHooks = []struct{ name, def, validate string }{
	{"none", "", ""},
	{"default", "ship-policy", ""},
	{"validate", "", "ship-policy"},
	{"both", "ship-policy", "ship-policy"},
}

// BenchmarkCreateHookLatency is one create at a time into the embedded
// etcd, with no hook, each hook alone and both, through a running
// ship-policy process: what one hook adds to a create's latency (p50 and
// p99, in µs, besides ns/op).
func BenchmarkCreateHookLatency(b *testing.B) {
	host := shipPolicyHost(b)
	ctx := context.Background()
	for _, hk := range benchHooks {
		b.Run(hk.name, func(b *testing.B) {
			s := newAdmittingStore(b, host)
			rv := benchShips(b, hk.def, hk.validate)
			mustCreate(b, s, rv, "default", string(ship("warm", `{"registry":"Oslo"}`))) // starts the plugin
			took := make([]time.Duration, 0, b.N)
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				n++
				body := ship(fmt.Sprintf("s%d", n), `{"registry":"Oslo"}`)
				start := time.Now()
				if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			reportPercentiles(b, took)
		})
	}
}

// BenchmarkCreateHookThroughput is creates from 8 parallel clients, with
// no hook and with both: the throughput the hooks cost (creates/s).
func BenchmarkCreateHookThroughput(b *testing.B) {
	host := shipPolicyHost(b)
	ctx := context.Background()
	for _, hk := range []struct{ name, def, validate string }{benchHooks[0], benchHooks[3]} {
		b.Run(hk.name, func(b *testing.B) {
			s := newAdmittingStore(b, host)
			rv := benchShips(b, hk.def, hk.validate)
			mustCreate(b, s, rv, "default", string(ship("warm", `{"registry":"Oslo"}`)))
			var n atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(8)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					body := ship(fmt.Sprintf("s%d", n.Add(1)), `{"registry":"Oslo"}`)
					if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "creates/s")
		})
	}
}

// reportPercentiles reports the p50 and p99 of took in µs.
func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds())
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
