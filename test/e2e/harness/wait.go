package harness

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
)

// GCTimeout bounds the wait for the garbage collector; it acts within
// milliseconds of a delete.
const GCTimeout = 15 * time.Second

// eventually polls cond until it holds or GCTimeout passes.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(GCTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, GCTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// MetricValue is the value of one series of specd's /metrics, as written
// there ("" when absent).
func MetricValue(t *testing.T, client *http.Client, s *Specd, series string) string {
	t.Helper()
	r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/metrics"})
	sc := bufio.NewScanner(strings.NewReader(r.Body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return v
		}
	}
	return ""
}

// WaitFor polls cond until it holds, failing the test after timeout.
func WaitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
