package httpserve_test

import (
	"net"
	"testing"

	"github.com/specd-io/specd/server/httpserve"
)

// TestListen: an IPv4 host is listened on as written, 0.0.0.0 too; a
// name is resolved as net.Listen does.
func TestListen(t *testing.T) {
	for address, wantHost := range map[string]string{"0.0.0.0:0": "0.0.0.0", "127.0.0.1:0": "127.0.0.1", "localhost:0": ""} {
		l, err := httpserve.Listen(address)
		if err != nil {
			t.Fatalf("Listen(%q): %v", address, err)
		}
		host, _, _ := net.SplitHostPort(l.Addr().String())
		l.Close()
		if wantHost != "" && host != wantHost {
			t.Errorf("Listen(%q) listens on %s, want host %s", address, l.Addr(), wantHost)
		}
	}
	if _, err := httpserve.Listen("127.0.0.1:x"); err == nil {
		t.Error(`Listen("127.0.0.1:x") listened`)
	}
}
