package build_test

import (
	"archive/tar"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// unpack writes img's root file system (its layers flattened, as a
// container runtime does) under root, and returns its tar headers by
// path (without the leading slash).
func unpack(t *testing.T, img v1.Image, root string) map[string]*tar.Header {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	headers := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return headers
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.Trim(filepath.Clean(hdr.Name), "/")
		headers[name] = hdr
		writeOut(t, tr, hdr, filepath.Join(root, name))
	}
}

func writeOut(t *testing.T, r io.Reader, hdr *tar.Header, path string) {
	t.Helper()
	switch hdr.Typeflag {
	case tar.TypeDir:
		// Owner write permission, so that the test can write below and
		// clean up; the header keeps the image's mode.
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(hdr.Mode).Perm())
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := io.Copy(f, r); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s: tar entry of type %q; the image holds only files and folders", hdr.Name, hdr.Typeflag)
	}
}

// checkRootFS: the user in /etc/passwd and /etc/group, a data directory
// it owns, CA certificates that parse, and every entry dated alike.
func checkRootFS(t *testing.T, root string, headers map[string]*tar.Header) {
	for file, want := range map[string]string{
		"etc/passwd": "specd:x:65532:65532:specd:/var/lib/specd:/sbin/nologin\n",
		"etc/group":  "specd:x:65532:\n",
	} {
		got, err := os.ReadFile(filepath.Join(root, file))
		if err != nil || !strings.Contains(string(got), want) {
			t.Errorf("/%s: %q (%v), want a line %q", file, got, err, want)
		}
	}
	if h := headers["var/lib/specd"]; h == nil || h.Uid != 65532 || h.Gid != 65532 || h.Mode&0o777 != 0o700 {
		t.Errorf("/var/lib/specd: %+v, want a folder 0700 of 65532:65532", h)
	}
	if h := headers["tmp"]; h == nil || h.Mode&0o1777 != 0o1777 {
		t.Errorf("/tmp: %+v, want a folder 1777", h)
	}
	for _, exe := range []string{"usr/local/bin/specd", "usr/local/lib/specd/plugins/ship-policy", "usr/local/lib/specd/plugins/fleet-controller"} {
		if h := headers[exe]; h == nil || h.Mode&0o755 != 0o755 || h.Uid != 0 {
			t.Errorf("/%s: %+v, want an executable of root's", exe, h)
		}
	}
	checkCerts(t, filepath.Join(root, "etc/ssl/certs/ca-certificates.crt"))
	checkTimes(t, headers)
}

func checkCerts(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			t.Errorf("%s: certificate %d: %v", file, n, err)
		}
		n++
	}
	// Mozilla's store holds about 150 roots.
	if n < 100 {
		t.Errorf("%s: %d certificates, want Mozilla's roots", file, n)
	}
}

// checkTimes: every entry has one time, that of the commit.
func checkTimes(t *testing.T, headers map[string]*tar.Header) {
	t.Helper()
	first := headers["etc/passwd"].ModTime
	for name, h := range headers {
		if !h.ModTime.Equal(first) {
			t.Errorf("/%s dated %s, /etc/passwd %s", name, h.ModTime, first)
		}
	}
}
