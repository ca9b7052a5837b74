package etcdcare

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BenchmarkDefragmentPause is what a defragmentation costs the writes
// that come during it: the embedded etcd answers nothing while it
// rewrites its file. The file is twice the live data, half of it free
// pages (as the default policy first finds it due), and Care
// defragments it while one client writes small values in a loop; the
// benchmark reports how long the defragmentation took and the slowest
// of those writes.
//
//	go test ./engine/etcdcare -run '^$' -bench DefragmentPause -benchtime 1x
func BenchmarkDefragmentPause(b *testing.B) {
	for _, liveMiB := range []int{32, 128} {
		b.Run(fmt.Sprintf("live-%dMiB", liveMiB), func(b *testing.B) {
			for range b.N {
				defragmentPause(b, liveMiB)
			}
		})
	}
}

func defragmentPause(b *testing.B, liveMiB int) {
	cli := startEtcd(b, 0)
	before := halfFreeFile(b, cli, liveMiB)
	care := New(Config{Client: cli, Embedded: true, Logger: quiet, Defrag: DefragPolicy{MinBytes: 1 << 20, MaxInUse: 0.6}})
	ctx, stopWrites := context.WithCancel(b.Context())
	slowest := make(chan time.Duration, 1)
	go func() { slowest <- writeUntil(ctx, cli) }()
	time.Sleep(100 * time.Millisecond) // the writer is going
	start := time.Now()
	if err := care.Check(b.Context()); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	time.Sleep(100 * time.Millisecond)
	stopWrites()
	after := status(b, cli)
	if after.DbSize > before.DbSize*3/4 {
		b.Fatalf("not defragmented: %d bytes before, %d after", before.DbSize, after.DbSize)
	}
	b.ReportMetric(float64(before.DbSize)/(1<<20), "MiB-file-before")
	b.ReportMetric(took.Seconds(), "s-defragment")
	b.ReportMetric((<-slowest).Seconds(), "s-slowest-write")
}

// halfFreeFile fills etcd with about 2*liveMiB of 64 KiB values, deletes
// every other one and compacts, so that about half the file is free.
func halfFreeFile(b *testing.B, cli *clientv3.Client, liveMiB int) *clientv3.StatusResponse {
	value := strings.Repeat("x", 64<<10)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < liveMiB*16*2; i += 8 {
				if _, err := cli.Put(b.Context(), fmt.Sprintf("/pause/%d/%06d", i%2, i), value); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return deleteAndCompact(b, cli, "/pause/1/", 0.6)
}

// writeUntil writes a small value again and again until ctx ends and
// returns the longest a write took.
func writeUntil(ctx context.Context, cli *clientv3.Client) time.Duration {
	var slowest time.Duration
	for ctx.Err() == nil {
		start := time.Now()
		if _, err := cli.Put(ctx, "/pause/writer", "x"); err != nil && ctx.Err() == nil {
			return -1
		}
		slowest = max(slowest, time.Since(start))
	}
	return slowest
}
