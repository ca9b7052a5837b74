package loadtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The kernel prints socket addresses in host byte order; the test data
// below is what a little-endian machine (amd64, arm64) prints.
func skipUnlessLittleEndian(t *testing.T) {
	t.Helper()
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("test data is from a little-endian machine")
	}
}

const tcpHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

func tcpLine(local, st, inode string) string {
	return fmt.Sprintf("   0: %s 00000000:0000 %s 00000000:00000000 00:00000000 00000000  1000        0 %s 1 0000000000000000 100 0 0 10 0\n", local, st, inode)
}

var testTCP = tcpHeader +
	tcpLine("0100007F:1F90", "0A", "11111") + // 127.0.0.1:8080 LISTEN
	tcpLine("00000000:1F91", "0A", "22222") + // 0.0.0.0:8081 LISTEN
	tcpLine("0100007F:1F90", "01", "44444") + // 127.0.0.1:8080 ESTABLISHED
	tcpLine("0500000A:1F92", "0A", "55555") + // 10.0.0.5:8082 LISTEN, not loopback
	tcpLine("0100007F:2382", "0A", "0") // 127.0.0.1:9090 LISTEN, no inode

var testTCP6 = tcpHeader +
	tcpLine("00000000000000000000000001000000:1F93", "0A", "66666") + // [::1]:8083
	tcpLine("00000000000000000000000000000000:1F94", "0A", "77777") + // [::]:8084
	tcpLine("0000000000000000FFFF00000100007F:1F95", "0A", "88888") // [::ffff:127.0.0.1]:8085

func TestParseHexAddr(t *testing.T) {
	skipUnlessLittleEndian(t)
	tests := map[string]struct {
		in      string
		ip      string
		port    int
		wantErr bool
	}{
		"ipv4 loopback":  {in: "0100007F:1F90", ip: "127.0.0.1", port: 8080},
		"ipv4 wildcard":  {in: "00000000:0050", ip: "0.0.0.0", port: 80},
		"ipv4 private":   {in: "0500000A:01BB", ip: "10.0.0.5", port: 443},
		"ipv6 loopback":  {in: "00000000000000000000000001000000:1F90", ip: "::1", port: 8080},
		"ipv6 mapped v4": {in: "0000000000000000FFFF00000100007F:1F90", ip: "127.0.0.1", port: 8080},
		"no port":        {in: "0100007F", wantErr: true},
		"short address":  {in: "00007F:1F90", wantErr: true},
		"not hex":        {in: "0100007G:1F90", wantErr: true},
		"bad port":       {in: "0100007F:XYZ", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ip, port, err := parseHexAddr(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, got %v:%d", ip, port)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ip.Equal(net.ParseIP(tc.ip)) || port != tc.port {
				t.Errorf("got %v:%d, want %s:%d", ip, port, tc.ip, tc.port)
			}
		})
	}
}

func TestParseListeners(t *testing.T) {
	skipUnlessLittleEndian(t)
	tests := map[string]struct {
		table string
		port  int
		want  []uint64
	}{
		"loopback listener, not the connection": {testTCP, 8080, []uint64{11111}},
		"wildcard listener":                     {testTCP, 8081, []uint64{22222}},
		"non-loopback listener is ignored":      {testTCP, 8082, nil},
		"inode 0 is ignored":                    {testTCP, 9090, nil},
		"nothing on the port":                   {testTCP, 1234, nil},
		"ipv6 loopback":                         {testTCP6, 8083, []uint64{66666}},
		"ipv6 wildcard":                         {testTCP6, 8084, []uint64{77777}},
		"ipv4-mapped loopback":                  {testTCP6, 8085, []uint64{88888}},
		"empty table":                           {tcpHeader, 8080, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseListeners(strings.NewReader(tc.table), tc.port)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("inodes = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseVmRSS(t *testing.T) {
	tests := map[string]struct {
		status  string
		want    int64
		wantErr bool
	}{
		"status file":    {status: "Name:\tspecd\nVmPeak:\t  999 kB\nVmRSS:\t   51200 kB\nRssAnon:\t 1 kB\n", want: 51200 * 1024},
		"kernel thread":  {status: "Name:\tkthreadd\nState:\tS (sleeping)\n", wantErr: true},
		"malformed unit": {status: "VmRSS:\t 12 MB\n", wantErr: true},
		"malformed size": {status: "VmRSS:\t x kB\n", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseVmRSS(strings.NewReader(tc.status))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %d, %v; want %d, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestLoopbackPort(t *testing.T) {
	tests := map[string]struct {
		url  string
		port int
		ok   bool
	}{
		"ipv4":             {"http://127.0.0.1:8080", 8080, true},
		"other loopback":   {"http://127.0.0.2:9000", 9000, true},
		"localhost":        {"http://localhost:8080/prefix", 8080, true},
		"ipv6":             {"http://[::1]:8080", 8080, true},
		"default http":     {"http://127.0.0.1", 80, true},
		"default https":    {"https://127.0.0.1", 443, true},
		"remote host":      {"https://10.0.0.1:6443", 0, false},
		"remote name":      {"https://api.example.com", 0, false},
		"unparseable port": {"http://127.0.0.1:x", 0, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			port, ok := loopbackPort(tc.url)
			if port != tc.port || ok != tc.ok {
				t.Errorf("got %d, %v; want %d, %v", port, ok, tc.port, tc.ok)
			}
		})
	}
}

// fakeProc writes a /proc tree: net/tcp{,6}, fd links for pids, and a status.
func fakeProc(t *testing.T, fds map[int][]string) string {
	t.Helper()
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "net"), 0o755))
	must(os.WriteFile(filepath.Join(root, "net", "tcp"), []byte(testTCP), 0o644))
	must(os.WriteFile(filepath.Join(root, "net", "tcp6"), []byte(testTCP6), 0o644))
	must(os.MkdirAll(filepath.Join(root, "self"), 0o755))
	for pid, links := range fds {
		dir := filepath.Join(root, fmt.Sprint(pid), "fd")
		must(os.MkdirAll(dir, 0o755))
		for i, link := range links {
			must(os.Symlink(link, filepath.Join(dir, fmt.Sprint(i))))
		}
		must(os.WriteFile(filepath.Join(root, fmt.Sprint(pid), "status"), []byte("VmRSS:\t 2048 kB\n"), 0o644))
	}
	return root
}

func TestFindServerPID(t *testing.T) {
	skipUnlessLittleEndian(t)
	root := fakeProc(t, map[int][]string{
		7:   {"/dev/null", "socket:[44444]"},             // a client of port 8080
		42:  {"/dev/null", "pipe:[1]", "socket:[11111]"}, // the server on 127.0.0.1:8080
		99:  {"socket:[66666]"},                          // a server on [::1]:8083
		120: {"socket:[11111]"},                          // a child that inherited 42's socket
	})
	tests := map[string]struct {
		url     string
		want    int
		wantErr error
	}{
		"ipv4 listener, lowest pid": {url: "http://127.0.0.1:8080", want: 42},
		"ipv6 listener":             {url: "http://[::1]:8083", want: 99},
		"localhost":                 {url: "http://localhost:8080", want: 42},
		"no listener":               {url: "http://127.0.0.1:1234", wantErr: errNotFound},
		"listener of no process":    {url: "http://127.0.0.1:8081", wantErr: errNotFound},
		"remote server":             {url: "https://10.0.0.1:6443", wantErr: errNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := findServerPID(root, tc.url)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Errorf("got %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	if rss, err := readRSS(root, 42); err != nil || rss != 2048*1024 {
		t.Errorf("readRSS = %d, %v; want %d", rss, err, 2048*1024)
	}
}

// TestFindServerPIDLive finds this test process through the real /proc.
func TestFindServerPIDLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	pid, err := findServerPID("/proc", "http://"+ln.Addr().String())
	if err != nil || pid != os.Getpid() {
		t.Fatalf("got %d, %v; want %d", pid, err, os.Getpid())
	}
	if rss, err := readRSS("/proc", pid); err != nil || rss <= 0 {
		t.Errorf("readRSS = %d, %v", rss, err)
	}
}
