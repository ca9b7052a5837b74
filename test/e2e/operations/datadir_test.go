package operations

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// privateFiles are the files of a data directory that only its owner may
// read: the embedded etcd's socket, the private keys specd generates, the
// admin kubeconfig that carries one, and the lock.
var privateFiles = map[string]fs.FileMode{
	"":                 fs.ModeDir | 0o700,
	"etcd.sock":        fs.ModeSocket | 0o600,
	"ca.key":           0o600,
	"serving.key":      0o600,
	"admin.key":        0o600,
	"admin.kubeconfig": 0o600,
	"specd.lock":       0o600,
}

// TestDataDirPrivate: specd serving securely with its embedded etcd keeps
// the data directory it creates to its owner: the directory 0700, the
// socket, keys and kubeconfig 0600, and nothing but the certificates open
// to others. The process listens on one TCP port, the API's: etcd is
// reached through the socket only.
func TestDataDirPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new", "data")
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true, DataDir: dir})
	for name, want := range privateFiles {
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := fi.Mode(); got != want {
			t.Errorf("%s: mode %v, want %v", filepath.Join(dir, name), got, want)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		// Certificates are public; the directory keeps them from others
		// all the same.
		if fi.Mode().Perm()&0o077 != 0 && !strings.HasSuffix(p, ".crt") {
			t.Errorf("%s: mode %v, open to group or others", p, fi.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkOnlyTCPListener(t, s.Cmd.Process.Pid, s.Addr)
}

// checkOnlyTCPListener checks that the process pid listens on TCP at addr
// and nowhere else, from Linux's /proc: the socket inodes among its open
// files, in the kernel's tables of TCP sockets.
func checkOnlyTCPListener(t *testing.T, pid int, addr string) {
	t.Helper()
	procDir := filepath.Join("/proc", strconv.Itoa(pid))
	inodes := socketInodes(t, procDir)
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	var listening []string
	for _, table := range []string{"net/tcp", "net/tcp6"} {
		data, err := os.ReadFile(filepath.Join(procDir, table))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			// sl local_address rem_address st ... inode (the tenth field)
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && inodes[f[9]] {
				listening = append(listening, f[1])
			}
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	if len(listening) != 1 || !strings.HasSuffix(listening[0], fmt.Sprintf(":%04X", n)) {
		t.Errorf("specd listens on TCP %v (hex address:port), want only the API's port %s", listening, port)
	}
}

// socketInodes are the inodes of the sockets the process has open.
func socketInodes(t *testing.T, procDir string) map[string]bool {
	t.Helper()
	fds, err := os.ReadDir(filepath.Join(procDir, "fd"))
	if err != nil {
		t.Skipf("cannot read the open files of specd: %v", err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(procDir, "fd", fd.Name()))
		if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return inodes
}
