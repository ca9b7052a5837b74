package etcdstorage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// TestEmbeddedListensOnNoTCPPort: the embedded etcd adds no TCP listener
// to the process, so no local user can reach it without going through
// specd, and it takes no port another listener wanted.
func TestEmbeddedListensOnNoTCPPort(t *testing.T) {
	before := tcpListeners(t)
	e := startEmbedded(t, t.TempDir())
	for inode, addr := range tcpListeners(t) {
		if _, ok := before[inode]; !ok {
			t.Errorf("the embedded etcd listens on TCP %s", addr)
		}
	}
	for _, ep := range e.Endpoints() {
		if !strings.HasPrefix(ep, "unix://") {
			t.Errorf("endpoint %q is not a unix socket", ep)
		}
	}
}

// TestEmbeddedModes: a data directory specd creates is 0700, the socket
// in it 0600.
func TestEmbeddedModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "data")
	e := startEmbedded(t, dir)
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("data directory mode %04o, want 0700", got)
	}
	socket := filepath.Join(dir, etcdstorage.SocketName)
	if got := mode(t, socket); got != 0o600 {
		t.Errorf("socket mode %04o, want 0600", got)
	}
	if want := "unix://" + socket; len(e.Endpoints()) != 1 || e.Endpoints()[0] != want {
		t.Errorf("Endpoints() = %q, want [%s]", e.Endpoints(), want)
	}
}

// TestEmbeddedOpenDataDir: an existing empty data directory that other
// users may enter is made 0700; one with content is refused, named in the
// error, and left as it was.
func TestEmbeddedOpenDataDir(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil { // past the umask
			t.Fatal(err)
		}
		startEmbedded(t, dir)
		if got := mode(t, dir); got != 0o700 {
			t.Errorf("data directory mode %04o, want 0700", got)
		}
	})

	for name, perm := range map[string]os.FileMode{"world": 0o755, "group": 0o750, "group write": 0o770} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, perm); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "notes"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, perm); err != nil { // past the umask
				t.Fatal(err)
			}
			e, err := etcdstorage.StartEmbedded(context.Background(), etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true})
			if err == nil {
				e.Close()
				t.Fatalf("StartEmbedded on a %04o data directory succeeded", perm)
			}
			if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "chmod 0700") {
				t.Errorf("error %q does not name %s and the fix", err, dir)
			}
			if got := mode(t, dir); got != perm {
				t.Errorf("mode changed to %04o", got)
			}
		})
	}
}

// TestEmbeddedTwoInOneProcess: two embedded etcds in one process start
// side by side and keep their data apart.
func TestEmbeddedTwoInOneProcess(t *testing.T) {
	ctx := context.Background()
	a, b := startEmbedded(t, t.TempDir()), startEmbedded(t, t.TempDir())
	if a.Endpoints()[0] == b.Endpoints()[0] {
		t.Fatalf("both at %s", a.Endpoints()[0])
	}
	cliA, err := etcdstorage.NewClient(ctx, a.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	defer cliA.Close()
	cliB, err := etcdstorage.NewClient(ctx, b.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	defer cliB.Close()
	if _, err := etcdstorage.New(cliA).Create(ctx, "/only-in-a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if kv, err := etcdstorage.New(cliB).Get(ctx, "/only-in-a"); err == nil {
		t.Errorf("b has a's key: %q", kv.Value)
	}
}

// TestEmbeddedSameDirTwice: a second embedded etcd on a data directory in
// use is refused, and the first keeps serving, new clients included.
func TestEmbeddedSameDirTwice(t *testing.T) {
	dir := t.TempDir()
	first := startEmbedded(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if second, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true, ReadyTimeout: 3 * time.Second}); err == nil {
		second.Close()
		t.Fatal("a second embedded etcd started on the same data directory")
	} else if !strings.Contains(err.Error(), "in use") {
		t.Errorf("error %q does not say the directory is in use", err)
	}
	cli, err := etcdstorage.NewClient(ctx, first.Endpoints())
	if err != nil {
		t.Fatalf("the first no longer answers: %v", err)
	}
	cli.Close()
}

func startEmbedded(t *testing.T, dir string) *etcdstorage.Embedded {
	t.Helper()
	e, err := etcdstorage.StartEmbedded(context.Background(), etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// tcpListeners are the TCP sockets in LISTEN state that this process
// holds, by inode, with their local address in /proc's hex form.
func tcpListeners(t *testing.T) map[string]string {
	t.Helper()
	owned := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			owned[strings.TrimSuffix(inode, "]")] = true
		}
	}
	out := map[string]string{}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && owned[f[9]] {
				out[f[9]] = f[1]
			}
		}
	}
	return out
}
