package etcdcare

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// TestOpenAsyncThenAbandon opens an embedded etcd in the background,
// abandons it, and opens the same data directory again: an abandoned
// Open must leave a directory it did not make unlocked and whole.
func TestOpenAsyncThenAbandon(t *testing.T) {
	// Not t.TempDir(): the socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "etcdcare-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	cfg := OpenConfig{Embedded: etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true, Logger: quiet}, Logger: quiet}
	OpenAsync(t.Context(), cfg).Abandon()
	opened, err := OpenAsync(t.Context(), cfg).Wait()
	if err != nil {
		t.Fatalf("open after an abandoned open: %v", err)
	}
	defer opened.Close()
	if _, err := opened.Client.Put(t.Context(), "k", "v"); err != nil {
		t.Fatalf("put: %v", err)
	}
}

// TestOpenAsyncError hands Open's error to Wait, and Abandon of a failed
// Open returns.
func TestOpenAsyncError(t *testing.T) {
	cfg := OpenConfig{Embedded: etcdstorage.EmbeddedConfig{Logger: quiet}, Logger: quiet}
	if _, err := OpenAsync(t.Context(), cfg).Wait(); err == nil {
		t.Fatal("an embedded etcd without a data directory opened")
	}
	OpenAsync(t.Context(), cfg).Abandon()
}

// TestAbandonRemovesMadeDir abandons an Open that made its data
// directory: nothing of it is left.
func TestAbandonRemovesMadeDir(t *testing.T) {
	parent, err := os.MkdirTemp("", "etcdcare-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	dir := filepath.Join(parent, "d")
	o := OpenAsync(t.Context(), OpenConfig{Embedded: etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true, Logger: quiet}, Logger: quiet})
	if _, err := o.Wait(); err != nil {
		t.Fatal(err)
	}
	o.Abandon()
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the data directory an abandoned Open made is still there: %v", err)
	}
}
