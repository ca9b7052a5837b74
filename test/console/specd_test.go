package console

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testproc"
)

// repoRoot is the specd repository, relative to this package.
const repoRoot = "../.."

// Tokens of --token-auth-file: alice is an admin (system:masters); val
// gets the view role from viewBinding.
const (
	adminToken = "console-admin-token"
	viewToken  = "console-view-token"
	tokenFile  = adminToken + ",alice,1001,system:masters\n" + viewToken + ",val,1002\n"
)

const viewBinding = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"val-views"},
"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"val"}]}`

// specd is one running `specd serve` over TLS.
type specd struct {
	URL     string
	Schemas string // a copy of the example schemas the test may change
	client  *http.Client
	log     *testproc.Buffer
}

// binary is $name, or what build makes in dir.
func binary(t testing.TB, env, dir string, build ...string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	cmd := exec.Command("go", append([]string{"build", "-o", dir}, build...)...)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", build, err, out)
	}
	return dir
}

// servingLine is specd's log line that says where it serves.
var servingLine = regexp.MustCompile(`msg=serving address=(https://\S+)`)

// startSpecd runs specd on a loopback port of the kernel's choosing
// with the example schemas, plugins and tokenFile, and stops it when the
// test ends.
func startSpecd(t testing.TB, args ...string) *specd {
	t.Helper()
	bin := t.TempDir()
	specdBin := binary(t, "SPECD_BIN", filepath.Join(bin, "specd"), "./cmd/specd")
	plugins := binary(t, "PLUGINS_DIR", filepath.Join(bin, "plugins")+string(filepath.Separator), "./examples/plugins/...")
	dir := t.TempDir()
	s := &specd{Schemas: filepath.Join(dir, "schemas")}
	if err := os.CopyFS(s.Schemas, os.DirFS(filepath.Join(repoRoot, "examples", "schemas"))); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(tokenFile), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(specdBin, append([]string{"serve", "--schemas", s.Schemas, "--plugins", plugins, "--data-dir", data,
		"--listen", "127.0.0.1:0", "--token-auth-file", tokens}, args...)...)
	var log testproc.Buffer
	s.log = &log
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("specd did not stop within 15 s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("--- specd log ---\n%s", log.String())
		}
	})
	s.waitReady(t, &log, data, exited)
	return s
}

// waitReady waits for specd's address, trusts the CA it generated, and
// waits for /readyz.
func (s *specd) waitReady(t testing.TB, log *testproc.Buffer, data string, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for s.URL == "" {
		if m := servingLine.FindStringSubmatch(log.String()); m != nil {
			s.URL = m[1]
			break
		}
		select {
		case <-exited:
			t.Fatalf("specd exited:\n%s", log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("specd did not say where it serves:\n%s", log.String())
		}
	}
	ca, err := os.ReadFile(filepath.Join(data, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	s.client = &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for {
		code, _, err := s.do(t.Context(), http.MethodGet, "/readyz", "", "")
		if err == nil && code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("specd not ready: %d %v\n%s", code, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// loginLinkLine is specd's log line with the console's login link.
var loginLinkLine = regexp.MustCompile(`msg="console login link, for one login" url=(\S+)`)

// loginLink is the console login link specd logged at start.
func (s *specd) loginLink(t testing.TB) string {
	t.Helper()
	m := loginLinkLine.FindStringSubmatch(s.log.String())
	if m == nil {
		t.Fatalf("specd logged no login link:\n%s", s.log.String())
	}
	return strings.Trim(m[1], `"`)
}

// do sends a request as the admin; body is JSON, a merge patch for a
// PATCH.
func (s *specd) do(ctx context.Context, method, path, token, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	switch {
	case method == http.MethodPatch:
		req.Header.Set("Content-Type", "application/merge-patch+json")
	case body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// mustDo sends a request as the admin and fails the test unless it is
// answered with want.
func (s *specd) mustDo(t testing.TB, method, path, body string, want int) string {
	t.Helper()
	code, out, err := s.do(t.Context(), method, path, adminToken, body)
	if err != nil || code != want {
		t.Fatalf("%s %s: %d %v %s, want %d", method, path, code, err, out, want)
	}
	return out
}

// widget is a Widget of the example schemas, as JSON.
func widget(name, color string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q,"namespace":"default"},"spec":{"color":%q}}`, name, color)
}

// event is a core/v1 Event about the widget name (of uid, if any), as
// JSON.
func event(name, widget, uid, reason string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":%q,"namespace":"default"},
"involvedObject":{"apiVersion":"shop.example.com/v1","kind":"Widget","namespace":"default","name":%q,"uid":%q},
"reason":%q,"message":"the widget was %s","type":"Normal","count":1,"source":{"component":"test"},
"firstTimestamp":"2026-11-29T12:00:00Z","lastTimestamp":"2026-11-29T12:00:00Z"}`, name, widget, uid, reason, reason)
}
