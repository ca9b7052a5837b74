package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// readyTimeout bounds the wait for /readyz after start.
	readyTimeout = 30 * time.Second
	// stopTimeout bounds a clean shutdown after SIGTERM.
	stopTimeout = 15 * time.Second
)

// exampleSchemas is the schema directory `make run` serves.
var exampleSchemas = filepath.Join(repoRoot, "examples", "schemas")

// specdOptions say how to start one specd.
type specdOptions struct {
	// Schemas is the schema directory; the example schemas when empty.
	Schemas string
	// DataDir is the data directory; a new t.TempDir() when empty.
	DataDir string
	// EtcdServers, when set, is passed as --etcd-servers.
	EtcdServers []string
	// Args are more flags for specd serve, such as --disable.
	Args []string
	// NoWait: startSpecd returns once the process runs, without waiting
	// for /readyz (the test calls waitReady).
	NoWait bool
}

// specd is one running `specd serve`.
type specd struct {
	Addr    string // host:port it serves on
	URL     string // http://Addr
	DataDir string
	Schemas string

	opts   specdOptions
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed when the process is gone
	err    error         // cmd.Wait's answer, valid once exited is closed

	stopOnce sync.Once
}

// startSpecd starts specd, waits until /readyz answers 200, and stops it
// with SIGTERM when the test ends, failing the test if it does not exit
// cleanly and promptly. Its stderr goes to the test log if the test fails.
func startSpecd(t testing.TB, opts specdOptions) *specd {
	t.Helper()
	if opts.Schemas == "" {
		opts.Schemas = exampleSchemas
	}
	schemas, err := filepath.Abs(opts.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	opts.Schemas = schemas
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	// A free port can be taken between the probe and specd's listen; try
	// again a few times if specd exits before it is ready.
	for attempt := 1; ; attempt++ {
		s, err := launch(t, opts)
		if err == nil {
			return s
		}
		if attempt == 3 || !strings.Contains(s.stderr.String(), "address already in use") {
			t.Fatalf("specd serve did not become ready: %v", err)
		}
	}
}

func launch(t testing.TB, opts specdOptions) (*specd, error) {
	t.Helper()
	s := &specd{
		Addr:    freeAddr(t),
		DataDir: opts.DataDir,
		Schemas: opts.Schemas,
		opts:    opts,
		stderr:  &syncBuffer{},
		exited:  make(chan struct{}),
	}
	s.URL = "http://" + s.Addr
	args := []string{"serve", "--schemas", opts.Schemas, "--data-dir", opts.DataDir, "--listen", s.Addr}
	if len(opts.EtcdServers) > 0 {
		args = append(args, "--etcd-servers", strings.Join(opts.EtcdServers, ","))
	}
	// The example schemas bind the example plugins.
	if !slices.Contains(opts.Args, "--plugins") {
		args = append(args, "--plugins", binaries.plugins)
	}
	args = append(args, opts.Args...)
	s.cmd = exec.Command(binaries.specd, args...)
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	dieWithTest(s.cmd)
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start specd: %v", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.Stop(t)
		if t.Failed() {
			t.Logf("--- specd %s stderr ---\n%s", s.Addr, s.stderr.String())
		}
	})
	if opts.NoWait {
		return s, nil
	}
	if err := s.waitReady(readyTimeout); err != nil {
		s.Kill()
		return s, err
	}
	return s, nil
}

func (s *specd) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("specd exited before it was ready: %v", s.err)
		default:
		}
		resp, err := client.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("/readyz not 200 after %s (last: %s)", timeout, last)
}

// Stop sends SIGTERM and fails the test unless specd exits with status 0
// within stopTimeout. Stopping twice is a no-op.
func (s *specd) Stop(t testing.TB) { t.Helper(); s.StopWith(t, syscall.SIGTERM) }

// StopWith is Stop with another signal (SIGINT, as Ctrl-C sends).
func (s *specd) StopWith(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.stopOnce.Do(func() {
		select {
		case <-s.exited:
			t.Errorf("specd %s had already exited: %v", s.Addr, s.err)
			return
		default:
		}
		start := time.Now()
		if err := s.cmd.Process.Signal(sig); err != nil {
			t.Errorf("signal specd: %v", err)
		}
		select {
		case <-s.exited:
			if s.err != nil {
				t.Errorf("specd exited uncleanly after %v: %v", sig, s.err)
			}
			t.Logf("specd %s stopped by %v in %s", s.Addr, sig, time.Since(start).Round(time.Millisecond))
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.exited
			t.Errorf("specd did not exit within %s of %v; killed", stopTimeout, sig)
		}
	})
}

// Kill ends specd with SIGKILL, as a crash would.
func (s *specd) Kill() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

// Options are the options to start another specd on the same data and
// schemas.
func (s *specd) Options() specdOptions { return s.opts }

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the test's
// reads at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// writeFile writes content to name under dir and returns the path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// testContext returns a context that ends when the test does, bounded by timeout.
func testContext(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}
