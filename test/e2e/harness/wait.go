package harness

import (
	"testing"
	"time"
)

// GCTimeout bounds the wait for the garbage collector; it acts within
// milliseconds of a delete.
const GCTimeout = 15 * time.Second

// ConvergeTimeout bounds the wait for a reconciler to reach what a fleet
// asks; it takes milliseconds.
const ConvergeTimeout = 30 * time.Second

// Eventually fails the test unless cond holds within GCTimeout, polling
// it every 200 ms (a cond often runs kubectl).
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	poll(t, GCTimeout, 200*time.Millisecond, what, stateless(cond))
}

// WaitFor fails the test unless cond holds within timeout.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	poll(t, timeout, 100*time.Millisecond, what, stateless(cond))
}

// Converge fails the test unless cond holds within ConvergeTimeout;
// failing, it says the state cond last reported.
func Converge(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	poll(t, ConvergeTimeout, 50*time.Millisecond, what, cond)
}

// poll calls cond every interval until it holds, and fails the test once
// timeout has passed, with what and the state cond last reported.
func poll(t testing.TB, timeout, interval time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		switch {
		case ok:
			return
		case time.Now().After(deadline) && state != "":
			t.Fatalf("%s: not within %s; last: %s", what, timeout, state)
		case time.Now().After(deadline):
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(interval)
	}
}

func stateless(cond func() bool) func() (bool, string) {
	return func() (bool, string) { return cond(), "" }
}
