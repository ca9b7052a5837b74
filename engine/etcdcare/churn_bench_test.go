package etcdcare

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
)

const (
	churnObjects = 10_000
	churnWorkers = 16
	// churnCompaction is the compaction interval of the run, shorter than
	// specd's 5 minutes so that a run of minutes goes through several.
	churnCompaction  = 10 * time.Second
	churnSampleEvery = 5 * time.Second
)

// churnSample is the state of the run at one moment.
type churnSample struct {
	at                       time.Duration
	writes                   int64
	dbBytes, inUse, rssBytes int64
}

// BenchmarkChurn rewrites 10,000 objects of about 1 KiB, b.N writes in
// all, on the embedded etcd (no fsync) with Care compacting every 10 s
// and defragmenting by its default policy, and records the database
// size and the process's RSS along the way: both must level off, not
// grow with the writes. The full run is 1M writes:
//
//	go test ./engine/etcdcare -run '^$' -bench Churn -benchtime 1000000x -v
func BenchmarkChurn(b *testing.B) {
	cli := startEtcd(b, 0)
	st := etcdstorage.New(cli)
	ctx := b.Context()
	value := []byte(`{"data":"` + strings.Repeat("x", 1000) + `"}`)
	revs := make([]int64, churnObjects)
	for i := range revs {
		rev, err := st.Create(ctx, churnKey(i), value)
		if err != nil {
			b.Fatal(err)
		}
		revs[i] = rev
	}
	careCtx, stopCare := context.WithCancel(ctx)
	defer stopCare()
	// Defragment when due, without waiting for a quiet interval: the churn
	// never pauses, and the figures in docs/performance.md were taken so.
	policy := DefaultDefragPolicy
	policy.QuietWrites = 0
	go New(Config{Client: cli, Embedded: true, CompactionInterval: churnCompaction, CheckInterval: time.Second,
		Defrag: policy, Logger: quiet}).Run(careCtx)
	var writes, timeouts atomic.Int64
	samples := sampleChurn(careCtx, cli, &writes)
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range churnWorkers {
		wg.Go(func() {
			for n := w; n < b.N; n += churnWorkers {
				i := n % churnObjects
				rev, err := churnWrite(ctx, st, i, value, revs[i], &timeouts)
				if err != nil {
					b.Error(err)
					return
				}
				revs[i] = rev
				writes.Add(1)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	stopCare()
	reportChurn(b, <-samples, status(b, cli).DbSize)
	b.ReportMetric(float64(timeouts.Load()), "timeouts")
}

// churnWrite rewrites object i. A write that times out (etcd answers
// nothing while it defragments) is counted and made again from the
// object's current revision: its outcome is unknown.
func churnWrite(ctx context.Context, st *etcdstorage.Storage, i int, value []byte, rev int64, timeouts *atomic.Int64) (int64, error) {
	for {
		next, err := st.Update(ctx, churnKey(i), value, rev)
		if !errors.Is(err, storage.ErrTimeout) {
			return next, err
		}
		timeouts.Add(1)
		kv, err := st.Get(ctx, churnKey(i))
		if err != nil {
			return 0, err
		}
		rev = kv.ModRevision
	}
}

// churnKey is object i's key; worker w writes the objects i with
// i % churnWorkers == w, so no two workers write one object.
func churnKey(i int) string { return fmt.Sprintf("/specd/core/configmaps/churn/o%05d", i) }

// sampleChurn samples the run until ctx ends, then sends the samples.
func sampleChurn(ctx context.Context, cli *clientv3.Client, writes *atomic.Int64) <-chan []churnSample {
	out := make(chan []churnSample, 1)
	start := time.Now()
	go func() {
		var got []churnSample
		ticker := time.NewTicker(churnSampleEvery)
		defer ticker.Stop()
		for {
			if st, err := cli.Status(context.WithoutCancel(ctx), cli.Endpoints()[0]); err == nil {
				got = append(got, churnSample{at: time.Since(start), writes: writes.Load(),
					dbBytes: st.DbSize, inUse: st.DbSizeInUse, rssBytes: rss()})
			}
			select {
			case <-ctx.Done():
				out <- got
				return
			case <-ticker.C:
			}
		}
	}()
	return out
}

// reportChurn logs the samples as a table and reports the largest
// database and RSS, and the database at the end.
func reportChurn(b *testing.B, samples []churnSample, finalDB int64) {
	var maxDB, maxRSS int64
	var table strings.Builder
	fmt.Fprintf(&table, "%8s %10s %8s %8s %8s\n", "seconds", "writes", "db MiB", "in-use", "RSS MiB")
	for _, s := range samples {
		maxDB, maxRSS = max(maxDB, s.dbBytes), max(maxRSS, s.rssBytes)
		fmt.Fprintf(&table, "%8.0f %10d %8.1f %8.1f %8.1f\n", s.at.Seconds(), s.writes, mib(s.dbBytes), mib(s.inUse), mib(s.rssBytes))
	}
	b.Logf("churn of %d writes over %d objects:\n%s", b.N, churnObjects, table.String())
	b.ReportMetric(mib(maxDB), "max-db-MiB")
	b.ReportMetric(mib(finalDB), "final-db-MiB")
	b.ReportMetric(mib(maxRSS), "max-RSS-MiB")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// rss is the process's resident set size, from /proc; 0 where there is
// none.
func rss() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
