package engine_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/schemas"
)

// benchEvents is an Event resource without a schema (the engine stores
// what it is given), for the event load of the benchmarks: core v1 Event's
// shape, in a group of its own.
func benchEvents() *schemas.ResourceVersion {
	r := &schemas.Resource{Group: "bench.example.com", Kind: "Event", ListKind: "EventList", Plural: "events", Singular: "event",
		Scope: schemas.Namespaced, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

// benchEvent is an event as a controller records it (about 700 bytes).
func benchEvent(name string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"bench.example.com/v1","kind":"Event","metadata":{"name":%q},`+
		`"involvedObject":{"apiVersion":"shop.example.com/v1","kind":"Widget","namespace":"default","name":"w1","uid":"6a1e4d3c-93f4-4b59-8d2a-1f0a6c1d2e3f","resourceVersion":"12345"},`+
		`"reason":"Scaled","message":"scaled the widget from 3 to 5 replicas because the queue is 120 items long",`+
		`"source":{"component":"fleet-controller"},"firstTimestamp":"2026-11-21T10:19:21Z","lastTimestamp":"2026-11-21T10:19:21Z",`+
		`"count":1,"type":"Normal","eventTime":null,"reportingComponent":"fleet-controller","reportingInstance":"fleet-controller-7d9f"}`, name)
}

// eventNames numbers the events of every load of a Store, so that none
// is created twice.
var eventNames atomic.Int64

// eventLoad creates events at up to rate per second until stop is closed,
// as recorders do: from a fixed number of writers (16), in ticks of 10 ms;
// a tick's events that find no writer free are not made up later, so a
// machine that cannot keep the rate shows it in the events/s reached
// instead of in bursts. It returns a function that waits for the writers
// and says how many events they made.
func eventLoad(b *testing.B, s *engine.Store, rate int, stop <-chan struct{}) func() int64 {
	const writers, tick = 16, 10 * time.Millisecond
	rv := benchEvents()
	perTick := rate * int(tick) / int(time.Second)
	slots := make(chan int64, perTick)
	var made atomic.Int64
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range slots {
				name := fmt.Sprintf("e%d", eventNames.Add(1))
				if _, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: benchEvent(name), Options: engine.WriteOptions{}}); err != nil {
					b.Error(err)
					return
				}
				made.Add(1)
			}
		}()
	}
	go func() {
		defer close(slots)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			for range perTick {
				select {
				case slots <- 0:
				default: // every slot taken: this tick's rest is dropped
				}
			}
		}
	}()
	return func() int64 { wg.Wait(); return made.Load() }
}

// BenchmarkCreateWithEvents measures creates of widgets from 8 parallel
// clients, alone and while events are created at 1,000/s with a TTL (as
// --event-ttl makes them): the events' share of etcd and of the CPU is
// what slows the widgets, and must stay under 10%. The same load without
// a TTL tells the leases' own share. It reports the widget creates/s and
// the events/s reached.
func BenchmarkCreateWithEvents(b *testing.B) {
	for _, tc := range []struct {
		rate int
		ttl  time.Duration
	}{{0, time.Hour}, {1000, time.Hour}, {1000, 0}} {
		b.Run(fmt.Sprintf("events=%d/s,ttl=%v", tc.rate, tc.ttl), func(b *testing.B) {
			rate := tc.rate
			prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
			s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: prefix},
				TTL: map[string]time.Duration{"events.bench.example.com": tc.ttl}})
			rv := widgets(b)
			stop := make(chan struct{})
			made := func() int64 { return 0 }
			if rate > 0 {
				made = eventLoad(b, s, rate, stop)
				time.Sleep(200 * time.Millisecond) // the load's first lease and pace
			}
			var n atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					body := []byte(widget(fmt.Sprintf("w%d", n.Add(1)), 3))
					if _, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			elapsed := time.Since(start)
			b.StopTimer()
			close(stop)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
			if rate > 0 {
				b.ReportMetric(float64(made())/(elapsed.Seconds()+0.2), "events/s")
			}
		})
	}
}

// BenchmarkEventCreate creates events from 8 parallel clients, with the
// TTL's leases and without, and reports the process's CPU time per event:
// 1,000 events/s take 1,000 times that of the CPU, which is what they
// take from other writes on a busy machine.
func BenchmarkEventCreate(b *testing.B) {
	for _, ttl := range []time.Duration{time.Hour, 0} {
		b.Run(fmt.Sprintf("ttl=%v", ttl), func(b *testing.B) {
			prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
			s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: prefix},
				TTL: map[string]time.Duration{"events.bench.example.com": ttl}})
			rv := benchEvents()
			var n atomic.Int64
			cpu0 := cpuTime(b)
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: benchEvent(fmt.Sprintf("e%d", n.Add(1))), Options: engine.WriteOptions{}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// cpuTime is the user and system CPU time of the process so far (the
// embedded etcd's included).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCreateWithEventsPaired alternates, in each of 5 rounds, 2 s of
// widget creates alone and 2 s with events at 1,000/s (1 h TTL), so that a
// shared machine's drift falls on both alike. It reports the widget
// creates/s of each and the share lost (run it with -benchtime 1x).
func BenchmarkCreateWithEventsPaired(b *testing.B) {
	const rounds, phase = 5, 2 * time.Second
	prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
	s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: prefix},
		TTL: map[string]time.Duration{"events.bench.example.com": time.Hour}})
	rv := widgets(b)
	var n atomic.Int64
	creates := func() float64 { // widget creates/s for one phase, 8 clients
		var done atomic.Int64
		var wg sync.WaitGroup
		end := time.Now().Add(phase)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(end) {
					body := []byte(widget(fmt.Sprintf("w%d", n.Add(1)), 3))
					if _, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
						b.Error(err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		return float64(done.Load()) / phase.Seconds()
	}
	var alone, with, events float64
	for range b.N * rounds {
		alone += creates()
		stop := make(chan struct{})
		made := eventLoad(b, s, 1000, stop)
		with += creates()
		close(stop)
		events += float64(made()) / phase.Seconds()
	}
	k := float64(b.N * rounds)
	b.ReportMetric(alone/k, "alone-creates/s")
	b.ReportMetric(with/k, "with-events-creates/s")
	b.ReportMetric(events/k, "events/s")
	b.ReportMetric(100*(1-with/alone), "%-lost")
}
