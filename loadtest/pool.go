package loadtest

import (
	"context"
	"sync"
	"sync/atomic"
)

// runPool calls op(ctx, i) for every i in [0, n) from at most workers
// goroutines, and returns when all are done or ctx is done.
func runPool(ctx context.Context, n, workers int, op func(ctx context.Context, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				op(ctx, i)
			}
		})
	}
	wg.Wait()
}
