package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testproc"
)

const (
	// ReadyTimeout bounds the wait for /readyz after start.
	ReadyTimeout = 30 * time.Second
	// stopTimeout bounds a clean shutdown after SIGTERM.
	stopTimeout = 15 * time.Second
	// ClientTimeout bounds a request of specd.Client.
	ClientTimeout = 30 * time.Second
)

// ExampleSchemas is the schema directory `make run` serves.
var ExampleSchemas = filepath.Join(RepoRoot, "examples", "schemas")

// SpecdOptions say how to start one specd.
type SpecdOptions struct {
	// Schemas is the schema directory; the example schemas when empty.
	Schemas string
	// DataDir is the data directory; a new t.TempDir() when empty.
	DataDir string
	// EtcdServers, when set, is passed as --etcd-servers.
	EtcdServers []string
	// Args are more flags for specd serve, such as --disable.
	Args []string
	// NoWait: StartSpecd returns once the process runs, without waiting
	// for /readyz (the test calls WaitReady, which sets Addr and URL).
	NoWait bool
	// Secure serves HTTPS with the certificates specd generates (the
	// default of specd serve); without it specd runs with
	// --insecure-serving.
	Secure bool
}

// Specd is one running `specd serve`.
type Specd struct {
	Addr    string // host:port it serves on, as it logs it
	URL     string // http(s)://Addr
	DataDir string
	Schemas string
	// Kubeconfig is the admin kubeconfig specd wrote (Secure only).
	Kubeconfig string
	// Client reaches specd: over TLS as the admin of Kubeconfig when
	// Secure. Its Timeout is ClientTimeout; copy it with none for a watch.
	Client *http.Client
	Rest   *rest.Config

	opts   SpecdOptions
	proc   *testproc.Proc
	Cmd    *exec.Cmd
	Stderr *SyncBuffer
	Exited <-chan struct{} // closed when the process is gone

	stopOnce sync.Once
}

// StartSpecd starts specd, waits until /readyz answers 200, and stops it
// with SIGTERM when the test ends, failing the test if it does not exit
// cleanly and promptly. Its stderr goes to the test log if the test fails.
func StartSpecd(t testing.TB, opts SpecdOptions) *Specd {
	t.Helper()
	if opts.Schemas == "" {
		opts.Schemas = ExampleSchemas
	}
	schemas, err := filepath.Abs(opts.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	opts.Schemas = schemas
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	s := &Specd{
		DataDir: opts.DataDir,
		Schemas: opts.Schemas,
		opts:    opts,
	}
	s.start(t)
	if opts.NoWait {
		return s
	}
	if err := s.WaitReady(ReadyTimeout); err != nil {
		s.Kill()
		t.Fatalf("specd serve did not become ready: %v", err)
	}
	return s
}

// start runs specd on a loopback port the kernel picks: which one, specd
// says in its log (waitAddress).
func (s *Specd) start(t testing.TB) {
	t.Helper()
	opts := s.opts
	args := []string{"serve", "--schemas", opts.Schemas, "--data-dir", opts.DataDir, "--listen", "127.0.0.1:0"}
	if !opts.Secure {
		args = append(args, "--insecure-serving")
	}
	if len(opts.EtcdServers) > 0 {
		args = append(args, "--etcd-servers", strings.Join(opts.EtcdServers, ","))
	}
	// The example schemas bind the example plugins.
	if !slices.Contains(opts.Args, "--plugins") {
		args = append(args, "--plugins", Binaries.Plugins)
	}
	args = append(args, opts.Args...)
	proc, err := testproc.Start(exec.Command(Binaries.Specd, args...))
	if err != nil {
		t.Fatalf("start specd: %v", err)
	}
	s.proc, s.Cmd, s.Stderr, s.Exited = proc, proc.Cmd, proc.Out(), proc.Done()
	t.Cleanup(func() {
		s.Stop(t)
		if t.Failed() {
			t.Logf("--- specd %s stderr ---\n%s", s.Addr, s.Stderr.String())
		}
	})
}

// ServingLine is specd's log line that says where it serves.
var ServingLine = regexp.MustCompile(`msg=serving address=(https?)://(\S+)`)

// waitAddress waits until specd has logged where it serves, and sets Addr,
// URL, and the clients that reach it.
func (s *Specd) waitAddress(deadline time.Time) error {
	for s.Addr == "" {
		if m := ServingLine.FindStringSubmatch(s.Stderr.String()); m != nil {
			return s.setAddress(m[1], m[2])
		}
		select {
		case <-s.Exited:
			return fmt.Errorf("specd exited before it served: %v", s.ExitErr())
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("specd did not log its serving address")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// setAddress sets where specd serves, and the clients that reach it: over
// TLS, those of the admin kubeconfig specd wrote.
func (s *Specd) setAddress(scheme, addr string) error {
	s.Addr, s.URL = addr, scheme+"://"+addr
	s.Rest = &rest.Config{Host: s.URL}
	if s.opts.Secure {
		s.Kubeconfig = filepath.Join(s.DataDir, "admin.kubeconfig")
		cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
		if err != nil {
			return err
		}
		if cfg.Host != s.URL {
			return fmt.Errorf("%s points at %s, specd serves at %s", s.Kubeconfig, cfg.Host, s.URL)
		}
		s.Rest = cfg
	}
	client, err := rest.HTTPClientFor(s.Rest)
	if err != nil {
		return err
	}
	client.Timeout = ClientTimeout
	s.Client = client
	return nil
}

// WaitReady waits until specd has said where it serves and /readyz
// answers 200 there.
func (s *Specd) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	if err := s.waitAddress(deadline); err != nil {
		return err
	}
	client := *s.Client
	client.Timeout = time.Second
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-s.Exited:
			return fmt.Errorf("specd exited before it was ready: %v", s.ExitErr())
		default:
		}
		r, err := testhttp.Send(context.Background(), &client, testhttp.Request{URL: s.URL + "/readyz"})
		switch {
		case err != nil:
			last = err.Error()
		case r.Code == http.StatusOK:
			return nil
		default:
			last = fmt.Sprintf("HTTP %d", r.Code)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("/readyz not 200 after %s (last: %s)", timeout, last)
}

// Stop sends SIGTERM and fails the test unless specd exits with status 0
// within stopTimeout. Stopping twice is a no-op.
func (s *Specd) Stop(t testing.TB) { t.Helper(); s.StopWith(t, syscall.SIGTERM) }

// StopWith is Stop with another signal (SIGINT, as Ctrl-C sends).
func (s *Specd) StopWith(t testing.TB, sig syscall.Signal) {
	t.Helper()
	s.stopOnce.Do(func() {
		select {
		case <-s.Exited:
			t.Errorf("specd %s had already exited: %v", s.Addr, s.ExitErr())
			return
		default:
		}
		start := time.Now()
		if !s.proc.Stop(sig, stopTimeout) {
			t.Errorf("specd did not exit within %s of %v; killed", stopTimeout, sig)
			return
		}
		if err := s.ExitErr(); err != nil {
			t.Errorf("specd exited uncleanly after %v: %v", sig, err)
		}
		t.Logf("specd %s stopped by %v in %s", s.Addr, sig, time.Since(start).Round(time.Millisecond))
	})
}

// Kill ends specd with SIGKILL, as a crash would.
func (s *Specd) Kill() {
	s.stopOnce.Do(s.proc.Kill)
}

// Options are the options to start another specd on the same data and
// schemas.
func (s *Specd) Options() SpecdOptions { return s.opts }

// SyncBuffer is a bytes.Buffer safe for the process's writes and the test's
// reads at once.
type SyncBuffer = testproc.Buffer

// ExitErr is how specd ended; valid once exited is closed.
func (s *Specd) ExitErr() error { return s.proc.Err() }

// WriteFile writes content to name under dir and returns the path.
func WriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Context returns a context that ends when the test does, bounded by timeout.
func Context(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}
