package loadtest

import (
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Error keys that are not HTTP status codes.
const (
	errTransport     = "transport"      // no HTTP response: refused, reset, timeout
	errCountMismatch = "count-mismatch" // a list returned an unexpected number of items
	errBadResponse   = "bad-response"   // a 2xx response whose body is not what the conventions say
)

// recorder collects the outcome of every operation of one phase. Workers
// share it; each call takes a short lock, which is noise next to an HTTP
// round trip.
type recorder struct {
	mu        sync.Mutex
	latencies []time.Duration
	errors    map[string]int
	retries   int
	items     int
	steps     []Step
}

func newRecorder(capacity int) *recorder {
	return &recorder{latencies: make([]time.Duration, 0, capacity), errors: map[string]int{}}
}

// observe records one operation: its latency, and its error key if it failed.
func (r *recorder) observe(d time.Duration, errKey string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies = append(r.latencies, d)
	if errKey != "" {
		r.errors[errKey]++
	}
}

// fail records an error that is not an operation of its own (a count check).
func (r *recorder) fail(errKey string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors[errKey]++
}

func (r *recorder) addRetries(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retries += n
}

func (r *recorder) addItems(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items += n
}

func (r *recorder) addStep(s Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, s)
}

// statusKey is the error key of an HTTP status code.
func statusKey(code int) string { return strconv.Itoa(code) }

// Latency is a summary of a phase's latencies, exact over every sample.
type Latency struct {
	P50 time.Duration
	P90 time.Duration
	P99 time.Duration
	Max time.Duration
}

// summarize sorts ds in place and returns its exact percentiles.
func summarize(ds []time.Duration) Latency {
	slices.Sort(ds)
	return Latency{
		P50: percentile(ds, 50),
		P90: percentile(ds, 90),
		P99: percentile(ds, 99),
		Max: percentile(ds, 100),
	}
}

// percentile returns the p-th percentile of sorted by the nearest-rank
// method: the smallest sample such that at least p% of the samples are less
// than or equal to it. It is 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(n) / 100)) // p*n is exact for whole p
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}
