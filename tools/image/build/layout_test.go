package build_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/specd-io/specd/tools/image/build"
)

// TestWriteArchive: the tar of a layout holds its files and folders,
// sorted and dated as asked, and is the same bytes whatever the files'
// own times.
func TestWriteArchive(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"oci-layout":        `{"imageLayoutVersion": "1.0.0"}`,
		"index.json":        `{}`,
		"blobs/sha256/bbbb": "b",
		"blobs/sha256/aaaa": "a",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	created := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	first := archive(t, dir, created)
	touched := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "index.json"), touched, touched); err != nil {
		t.Fatal(err)
	}
	if second := archive(t, dir, created); !bytes.Equal(first, second) {
		t.Error("two archives of one layout differ")
	}
	var names []string
	tr := tar.NewReader(bytes.NewReader(first))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !hdr.ModTime.Equal(created) {
			t.Errorf("%s dated %s, want %s", hdr.Name, hdr.ModTime, created)
		}
		names = append(names, hdr.Name)
	}
	want := []string{"blobs/", "blobs/sha256/", "blobs/sha256/aaaa", "blobs/sha256/bbbb", "index.json", "oci-layout"}
	if !slices.Equal(names, want) {
		t.Errorf("entries %q, want %q", names, want)
	}
}

func archive(t *testing.T, dir string, created time.Time) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "image.tar")
	if err := build.WriteArchive(dir, file, created); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
