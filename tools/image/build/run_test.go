package build_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/specd-io/specd/tools/image/build"
)

// readyTimeout bounds specd's start, embedded etcd and plugins included.
const readyTimeout = 60 * time.Second

// checkRuns runs the unpacked image's specd: `specd version -o json`
// reports the version, commit, tree state and date the image's labels
// give, and `specd serve` of the example schemas, with the image's
// plugins, becomes ready.
func checkRuns(t *testing.T, root string, img v1.Image) {
	specd := filepath.Join(root, "usr/local/bin/specd")
	checkVersion(t, specd, img)
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	cmd := exec.Command(specd, "serve",
		"--schemas", filepath.Join(repo, "examples", "schemas"),
		"--plugins", filepath.Join(root, "usr/local/lib/specd/plugins"),
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--listen", "127.0.0.1:0", "--insecure-serving")
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stop(t, cmd, log)
	url, err := servingURL(ctx, log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if err := waitReady(ctx, url); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
}

// versionReport is the part of `specd version -o json` the test reads.
type versionReport struct {
	SpecdVersion  string `json:"specdVersion"`
	ServerVersion struct {
		GitCommit    string `json:"gitCommit"`
		GitTreeState string `json:"gitTreeState"`
		BuildDate    string `json:"buildDate"`
	} `json:"serverVersion"`
}

// checkVersion: the binary says of its source what the labels say.
func checkVersion(t *testing.T, specd string, img v1.Image) {
	t.Helper()
	out, err := exec.Command(specd, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("specd version -o json: %v", err)
	}
	var r versionReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("specd version -o json: %v\n%s", err, out)
	}
	rev := label(t, img, build.LabelRevision)
	commit, dirty := strings.CutSuffix(rev, "-dirty")
	want := versionReport{SpecdVersion: label(t, img, build.LabelVersion)}
	want.ServerVersion.GitCommit, want.ServerVersion.GitTreeState = commit, map[bool]string{true: "dirty", false: "clean"}[dirty]
	want.ServerVersion.BuildDate = label(t, img, build.LabelCreated)
	if r != want {
		t.Errorf("specd version -o json: %+v, want %+v (the labels')", r, want)
	}
}

// servingLine is specd's log line that says where it serves (as the e2e
// tests read it: port 0 is the kernel's pick).
var servingLine = regexp.MustCompile(`msg=serving address=(http://\S+)`)

func servingURL(ctx context.Context, log *syncBuffer) (string, error) {
	for {
		if m := servingLine.FindStringSubmatch(log.String()); m != nil {
			return m[1], nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("specd did not log where it serves: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func waitReady(ctx context.Context, url string) error {
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s/readyz not 200 (last: %s): %w", url, last, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop ends specd with SIGTERM and fails the test unless it exits with
// status 0.
func stop(t *testing.T, cmd *exec.Cmd, log *syncBuffer) {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("specd serve after SIGTERM: %v\n%s", err, log)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("specd serve did not stop within 30s of SIGTERM\n%s", log)
	}
}

// syncBuffer is a bytes.Buffer the process writes while the test reads.
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
