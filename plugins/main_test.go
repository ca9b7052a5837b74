package plugins

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testproc"
	"github.com/specd-io/specd/plugins/hook"
)

// binDir holds the test plugins, built once for every test: testplugin
// (plugins/sdk, its behaviour chosen by each object's spec.action),
// oldplugin (the handshake of another protocol version) and rawplugin
// (plain gRPC, as a plugin in another language would be written).
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "specd-plugins-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"testplugin", "oldplugin", "rawplugin"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./testdata/"+name)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", name, err, out)
			return 1
		}
	}
	binDir = dir
	return m.Run()
}

// pluginDir is a fresh plugins directory with the named test plugins
// linked in under the given names (name -> test plugin binary).
func pluginDir(t testing.TB, plugins map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, bin := range plugins {
		if err := os.Symlink(filepath.Join(binDir, bin), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logBuffer collects a Host's log as JSON lines.
type logBuffer struct{ testproc.Buffer }

// lines are the logged records that contain every one of subs.
func (b *logBuffer) lines(subs ...string) []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		ok := l != ""
		for _, s := range subs {
			ok = ok && strings.Contains(l, s)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// waitFor waits a few seconds for a logged record that contains every one
// of subs: a plugin's stderr is read from a pipe, apart from its answers.
func (b *logBuffer) waitFor(subs ...string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for len(b.lines(subs...)) == 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// newHost is a Host over dir whose log the test can read; it is closed
// when the test ends.
func newHost(t testing.TB, dir string, cb hook.Callbacks) (*Host, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	catalog, err := OpenCatalog(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(HostConfig{Catalog: catalog, Logger: log, Callbacks: cb})
	t.Cleanup(h.Close)
	return h, logs
}
