package specdtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// BinaryEnv names the environment variable that says where the specd
// binary is when Environment.Binary is empty.
const BinaryEnv = "SPECD_BIN"

// DefaultStartTimeout bounds a start when Environment.StartTimeout is 0.
const DefaultStartTimeout = time.Minute

// servingLine is the line specd logs once it listens.
var servingLine = regexp.MustCompile(`msg=serving address=(\S+)`)

// Environment is one specd for a test suite. Set its fields, call Start,
// and Stop when the suite is done.
type Environment struct {
	// Schemas is the directory of schema or CRD files specd serves
	// (its --schemas).
	Schemas string
	// Binary is the specd binary; empty: $SPECD_BIN, else specd on the
	// PATH.
	Binary string
	// Args are more flags for `specd serve` (--plugins DIR, say).
	Args []string
	// Log receives specd's log as it writes it; nil: it is kept only
	// to explain a failed start.
	Log io.Writer
	// StartTimeout bounds Start; 0 is DefaultStartTimeout.
	StartTimeout time.Duration

	// Config reaches specd as its admin (the group system:masters),
	// once Start has returned. DataDir is specd's data directory,
	// removed by Stop.
	Config  *rest.Config
	DataDir string

	cmd    *exec.Cmd
	logs   *lockedBuffer
	exited chan struct{}
	once   sync.Once
}

// Start starts specd and returns a rest.Config for its admin once
// /readyz answers 200. On an error nothing is left running.
func (e *Environment) Start(ctx context.Context) (*rest.Config, error) {
	bin, err := e.binary()
	if err != nil {
		return nil, err
	}
	if e.DataDir, err = os.MkdirTemp("", "specdtest-"); err != nil {
		return nil, fmt.Errorf("specdtest: data directory: %w", err)
	}
	if err := e.run(bin); err != nil {
		e.Stop()
		return nil, err
	}
	timeout := e.StartTimeout
	if timeout == 0 {
		timeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if e.Config, err = e.waitReady(ctx); err != nil {
		e.Stop()
		return nil, fmt.Errorf("specdtest: %w\n--- specd's log ---\n%s", err, e.logs.String())
	}
	return e.Config, nil
}

// Start runs an Environment serving schemas for one test, and stops it
// when the test and its subtests end.
func Start(t testing.TB, schemas string) *rest.Config {
	t.Helper()
	env := &Environment{Schemas: schemas}
	cfg, err := env.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Stop)
	return cfg
}

// Stop stops specd (SIGINT, then SIGKILL after 10 s) and removes its
// data directory. It may be called more than once.
func (e *Environment) Stop() {
	e.once.Do(func() {
		if e.cmd != nil {
			_ = e.cmd.Process.Signal(os.Interrupt)
			select {
			case <-e.exited:
			case <-time.After(10 * time.Second):
				_ = e.cmd.Process.Kill()
				<-e.exited
			}
		}
		if e.DataDir != "" {
			_ = os.RemoveAll(e.DataDir)
		}
	})
}

// binary is the specd binary to run.
func (e *Environment) binary() (string, error) {
	bin := e.Binary
	if bin == "" {
		bin = os.Getenv(BinaryEnv)
	}
	if bin == "" {
		bin = "specd"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("specdtest: no specd binary (set Environment.Binary or $%s, or put specd on the PATH): %w", BinaryEnv, err)
	}
	return path, nil
}

// run starts `specd serve` and copies its log to e.logs and e.Log.
func (e *Environment) run(bin string) error {
	if e.Schemas == "" {
		return errors.New("specdtest: Environment.Schemas is empty: name a directory of schema or CRD files")
	}
	args := append([]string{"serve", "--schemas", e.Schemas, "--data-dir", e.DataDir, "--listen", "127.0.0.1:0"}, e.Args...)
	e.cmd = exec.Command(bin, args...)
	dieWithParent(e.cmd)
	e.logs = &lockedBuffer{}
	var log io.Writer = e.logs
	if e.Log != nil {
		log = io.MultiWriter(e.logs, e.Log)
	}
	e.cmd.Stdout, e.cmd.Stderr = log, log
	if err := e.cmd.Start(); err != nil {
		e.cmd = nil
		return fmt.Errorf("specdtest: starting %s: %w", bin, err)
	}
	e.exited = make(chan struct{})
	go func() { _ = e.cmd.Wait(); close(e.exited) }()
	return nil
}

// waitReady waits for the serving line, reads the admin kubeconfig specd
// wrote before it, and polls /readyz until it answers 200.
func (e *Environment) waitReady(ctx context.Context) (*rest.Config, error) {
	var cfg *rest.Config
	var client *http.Client
	for {
		if cfg == nil && servingLine.MatchString(e.logs.String()) {
			var err error
			if cfg, client, err = adminConfig(e.DataDir); err != nil {
				return nil, err
			}
		}
		if client != nil && ready(ctx, client, cfg.Host) {
			return cfg, nil
		}
		select {
		case <-e.exited:
			return nil, fmt.Errorf("specd exited before it was ready: %s", e.cmd.ProcessState)
		case <-ctx.Done():
			return nil, fmt.Errorf("specd was not ready: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// adminConfig is the admin kubeconfig specd wrote into dataDir.
func adminConfig(dataDir string) (*rest.Config, *http.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dataDir, "admin.kubeconfig"))
	if err != nil {
		return nil, nil, fmt.Errorf("reading specd's admin kubeconfig: %w", err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("a client of specd's admin kubeconfig: %w", err)
	}
	return cfg, client, nil
}

// ready says whether GET /readyz answers 200.
func ready(ctx context.Context, client *http.Client, host string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(host, "/")+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// lockedBuffer is specd's log, written by exec's copier and read by
// waitReady.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
