package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/specd-io/specd/internal/testproc"
)

// Specd is one running `specd serve`.
type Specd struct {
	// URL is where it serves; Kubeconfig the admin kubeconfig it wrote.
	URL, Kubeconfig string
	proc            *testproc.Proc
}

// startTimeout bounds the wait from start to a ready specd.
const startTimeout = time.Minute

// servingLine is specd's log line that says where it serves.
var servingLine = regexp.MustCompile(`msg=serving address=(https://\S+)`)

// StartSpecd starts bin (specd) on a loopback port the kernel picks, with
// its data under dir and an empty schema directory, so that it serves its
// built-in kinds only, and waits until /readyz answers 200 through the
// admin kubeconfig it writes. CRDs change as in kube (--crd-gate=false):
// the tests add defaults to CRDs with objects, rename their versions and
// tighten their schemas.
func StartSpecd(ctx context.Context, bin, dir string) (*Specd, error) {
	data, schemas := filepath.Join(dir, "data"), filepath.Join(dir, "schemas")
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, "serve", "--schemas", schemas, "--data-dir", data, "--listen", "127.0.0.1:0", "--crd-gate=false")
	proc, err := testproc.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	s := &Specd{Kubeconfig: filepath.Join(data, "admin.kubeconfig"), proc: proc}
	if err := s.awaitReady(); err != nil {
		proc.Kill()
		return nil, fmt.Errorf("conformance: specd did not start: %w\n%s", err, proc.Out())
	}
	return s, nil
}

// awaitReady waits until specd says where it serves, then until /readyz
// answers 200 to the admin kubeconfig's client.
func (s *Specd) awaitReady() error {
	m, err := s.proc.Await(servingLine, startTimeout)
	if err != nil {
		return err
	}
	s.URL = m[1]
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	client.Timeout = time.Second
	for deadline := time.Now().Add(startTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if s.proc.Exited() {
			return fmt.Errorf("specd exited: %v", s.proc.Err())
		}
		if resp, err := client.Get(s.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("/readyz did not answer 200")
}

// Log is what specd has written so far.
func (s *Specd) Log() string { return s.proc.Out().String() }

// stopTimeout bounds a clean shutdown after SIGTERM.
const stopTimeout = 30 * time.Second

// Stop ends specd with SIGTERM; an error if it did not exit cleanly.
func (s *Specd) Stop() error {
	if s.proc.Exited() {
		return fmt.Errorf("conformance: specd had exited already: %v", s.proc.Err())
	}
	if !s.proc.Stop(syscall.SIGTERM, stopTimeout) {
		return fmt.Errorf("conformance: specd did not exit within %s of SIGTERM; killed", stopTimeout)
	}
	if err := s.proc.Err(); err != nil {
		return fmt.Errorf("conformance: specd exited: %w", err)
	}
	return nil
}
