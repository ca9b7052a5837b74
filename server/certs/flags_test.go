package certs

import (
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// TestFlagsOpen: without files, specd generates its certificates
// into the data dir and writes an admin kubeconfig for the address it is
// bound to, again on every start; --insecure-serving serves without TLS.
func TestFlagsOpen(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	for _, port := range []string{"1234", "5678"} {
		addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: atoi(t, port)}
		serving, err := Flags{}.Open(t.Context(), Place{DataDir: dir, Listen: "127.0.0.1:0", Addr: addr}, log)
		if err != nil {
			t.Fatal(err)
		}
		if serving.TLSConfig() == nil || serving.ClientCA() == nil {
			t.Fatal("no TLS config or client CA for generated certificates")
		}
		cfg, err := clientcmd.LoadFromFile(filepath.Join(dir, "admin.kubeconfig"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].Server, "https://127.0.0.1:"+port; got != want {
			t.Errorf("kubeconfig server %s, want %s", got, want)
		}
	}
	insecureDir := t.TempDir()
	serving, err := Flags{Insecure: true}.Open(t.Context(), Place{DataDir: insecureDir, Listen: "127.0.0.1:0", Addr: &net.TCPAddr{}}, log)
	if err != nil || serving != nil {
		t.Fatalf("insecure: %v, %v; want no TLS", serving, err)
	}
	if entries, _ := os.ReadDir(insecureDir); len(entries) > 0 {
		t.Errorf("insecure serving wrote %v into the data dir", entries)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	p, err := net.LookupPort("tcp", s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
