package server

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestMain runs the tests, or, when BenchmarkWatchFanOut100 or
// BenchmarkSlowWatchers starts this binary as its readers' process, the
// watch readers.
func TestMain(m *testing.M) {
	if url := os.Getenv(readerURLEnv); url != "" {
		n, err := strconv.Atoi(os.Getenv(readerCountEnv))
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", readerCountEnv, err)
			os.Exit(2)
		}
		runWatchReader(url, n)
		os.Exit(0)
	}
	if spec := os.Getenv(slowReadersEnv); spec != "" {
		runSlowReaders(spec)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
