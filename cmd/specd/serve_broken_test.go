package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBrokenSchemasLeavesNoDataDir: a broken schema directory stops
// specd with its problems listed, and the data directory that the etcd
// started meanwhile made is removed.
func TestServeBrokenSchemasLeavesNoDataDir(t *testing.T) {
	schemaDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(schemaDir, "a.yaml"), []byte("openapi: 3.0.3\ninfo: {title: t, version: v1}\nx-specd: {group: Bad_Group}\ncomponents: {schemas: {}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir(): the etcd socket's path must stay under 108 bytes.
	parent, err := os.MkdirTemp("", "serve-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	dataDir := filepath.Join(parent, "data")
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"serve", "--schemas", schemaDir, "--listen", "127.0.0.1:0", "--data-dir", dataDir}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), `a.yaml#/x-specd/group: group "Bad_Group"`) {
		t.Errorf("exit code %d, want 1 and the file's problem:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the data directory is left behind: %v", err)
	}
}
