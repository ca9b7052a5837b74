package loadtest

import (
	"context"
	"testing"
	"time"
)

func ms2d(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1 // 1..100 ms
	}
	tests := map[string]struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		"empty":            {nil, 50, 0},
		"one sample p50":   {ms2d(7), 50, 7 * time.Millisecond},
		"one sample p99":   {ms2d(7), 99, 7 * time.Millisecond},
		"p0 is the min":    {ms2d(1, 2, 3), 0, 1 * time.Millisecond},
		"p50 of 4 is 2nd":  {ms2d(1, 2, 3, 4), 50, 2 * time.Millisecond},
		"p50 of 5 is 3rd":  {ms2d(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		"p90 of 10 is 9th": {ms2d(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		"p99 of 10 is max": {ms2d(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		"p100 is the max":  {ms2d(1, 2, 30), 100, 30 * time.Millisecond},
		"p99 of 1..100":    {ms2d(hundred...), 99, 99 * time.Millisecond},
		"p90 of 1..100":    {ms2d(hundred...), 90, 90 * time.Millisecond},
		"p29 of 1..100":    {ms2d(hundred...), 29, 29 * time.Millisecond}, // 0.29*100 is not exact in floating point
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(p%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func TestSummarizeSortsAndKeepsEverySample(t *testing.T) {
	ds := ms2d(5, 1, 100, 3, 2, 4, 6, 8, 7, 9)
	got := summarize(ds)
	want := Latency{P50: 5 * time.Millisecond, P90: 9 * time.Millisecond, P99: 100 * time.Millisecond, Max: 100 * time.Millisecond}
	if got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
}

func TestRecorderIsSafeForWorkers(t *testing.T) {
	rec := newRecorder(0)
	runPool(t.Context(), 1000, 8, func(_ context.Context, i int) {
		key := ""
		if i%10 == 0 {
			key = statusKey(500)
		}
		rec.observe(time.Duration(i), key)
	})
	if len(rec.latencies) != 1000 || rec.errors["500"] != 100 {
		t.Errorf("got %d latencies and %d errors, want 1000 and 100", len(rec.latencies), rec.errors["500"])
	}
}
