package certs

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestEnsureGenerates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	f, err := Ensure(dir, []string{"specd.example.com", "10.1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{f.CAKey: 0o600, f.ServingKey: 0o600, f.AdminKey: 0o600, f.CACert: 0o644, f.ServingCert: 0o644, f.AdminCert: 0o644, dir: 0o700}
	for p, want := range modes {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v; want %04o", p, err, fi.Mode().Perm(), want)
		}
	}
	ca := readCert(t, f.CACert)
	serving := readCert(t, f.ServingCert)
	for _, h := range []string{"specd.example.com", "10.1.2.3", "localhost", "127.0.0.1", "::1"} {
		if err := serving.VerifyHostname(h); err != nil {
			t.Errorf("serving certificate: %v", err)
		}
	}
	if err := serving.VerifyHostname("other.example.com"); err == nil {
		t.Error("the serving certificate covers other.example.com")
	}
	verify(t, serving, ca, x509.ExtKeyUsageServerAuth)
	admin := readCert(t, f.AdminCert)
	verify(t, admin, ca, x509.ExtKeyUsageClientAuth)
	if admin.Subject.CommonName != "specd-admin" || !slices.Equal(admin.Subject.Organization, []string{"system:masters"}) {
		t.Errorf("admin subject %v, want CN specd-admin, O system:masters", admin.Subject)
	}
}

// TestEnsureKeeps starts over on the files of a first start, changed as
// each case says, and checks which files were made again.
func TestEnsureKeeps(t *testing.T) {
	cases := map[string]struct {
		hosts  []string
		change func(f Files)
		remade []string // of ca, serving, admin
	}{
		"same hosts":          {hosts: []string{"a.example.com"}},
		"fewer hosts":         {hosts: nil},
		"another host":        {hosts: []string{"b.example.com"}, remade: []string{"serving"}},
		"serving key missing": {hosts: []string{"a.example.com"}, change: func(f Files) { os.Remove(f.ServingKey) }, remade: []string{"serving"}},
		"admin unreadable":    {hosts: []string{"a.example.com"}, change: func(f Files) { os.WriteFile(f.AdminCert, []byte("junk"), 0o644) }, remade: []string{"admin"}},
		"CA key missing":      {hosts: []string{"a.example.com"}, change: func(f Files) { os.Remove(f.CAKey) }, remade: []string{"ca", "serving", "admin"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			f, err := Ensure(dir, []string{"a.example.com"})
			if err != nil {
				t.Fatal(err)
			}
			before := contents(t, f)
			if tc.change != nil {
				tc.change(f)
			}
			if _, err := Ensure(dir, tc.hosts); err != nil {
				t.Fatal(err)
			}
			after := contents(t, f)
			for _, which := range []string{"ca", "serving", "admin"} {
				if remade := before[which] != after[which]; remade != slices.Contains(tc.remade, which) {
					t.Errorf("%s made again: %v, want %v", which, remade, !remade)
				}
			}
		})
	}
}

func TestHostsAndLocalURL(t *testing.T) {
	name, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]string{"127.0.0.1:8080": "127.0.0.1", "[::1]:0": "::1", "specd.example.com:443": "specd.example.com", ":8080": name, "0.0.0.0:8080": name, "[::]:8080": name}
	for listen, want := range hosts {
		if got, err := Hosts(listen); err != nil || !slices.Equal(got, []string{want}) {
			t.Errorf("Hosts(%q) = %q, %v; want [%s]", listen, got, err, want)
		}
	}
	urls := map[string]string{"127.0.0.1:8080": "https://127.0.0.1:8080", "[::1]:9": "https://[::1]:9", "0.0.0.0:1": "https://127.0.0.1:1", "[::]:2": "https://127.0.0.1:2"}
	for addr, want := range urls {
		if got := LocalURL("https", tcpAddr(t, addr)); got != want {
			t.Errorf("LocalURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

func tcpAddr(t *testing.T, s string) net.Addr {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// contents reads the certificate of each pair of f.
func contents(t *testing.T, f Files) map[string]string {
	t.Helper()
	out := map[string]string{}
	for which, p := range map[string]string{"ca": f.CACert, "serving": f.ServingCert, "admin": f.AdminCert} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[which] = string(b)
	}
	return out
}

func readCert(t *testing.T, p string) *x509.Certificate {
	t.Helper()
	a, err := loadPair(p, p[:len(p)-len(".crt")]+".key")
	if err != nil {
		t.Fatal(err)
	}
	return a.cert
}

func verify(t *testing.T, leaf, ca *x509.Certificate, usage x509.ExtKeyUsage) {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		t.Errorf("%s: %v", leaf.Subject.CommonName, err)
	}
}
