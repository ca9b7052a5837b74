package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the clone the tests build.
var repoRoot = filepath.Join("..", "..")

// testStamp is a fixed stamp, so that both builds of a test say the same.
var testStamp = stamp{Commit: "0123456789abcdef0123456789abcdef01234567", TreeState: "clean", Date: "2026-01-02T03:04:05Z"}

// TestReleaseReproducible builds this platform's binary twice, from the
// clone and from a copy of its tracked files elsewhere, and requires the
// same bytes; then runs it and verifies SHA256SUMS as a user would.
func TestReleaseReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specd twice")
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	o := options{Repo: repoRoot, Out: t.TempDir(), Version: "v0.9.9-test", Platforms: []string{platform}, Stamp: testStamp}
	if _, err := build(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	other := o
	other.Repo, other.Out = copyTracked(t), t.TempDir()
	if _, err := build(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	a, b := readFile(t, filepath.Join(o.Out, SumsFile)), readFile(t, filepath.Join(other.Out, SumsFile))
	if a != b || !strings.Contains(a, binaryName(o.Version, platform)) {
		t.Errorf("two builds of one source differ:\n%s\n%s", a, b)
	}
	sha := exec.CommandContext(t.Context(), "sha256sum", "-c", SumsFile)
	sha.Dir = o.Out
	if out, err := sha.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c %s: %v\n%s", SumsFile, err, out)
	}
	out, err := exec.CommandContext(t.Context(), filepath.Join(o.Out, binaryName(o.Version, platform)), "version", "--short").Output()
	if err != nil || strings.TrimSpace(string(out)) != o.Version {
		t.Errorf("specd version: %q, %v; want %s", out, err, o.Version)
	}
}

// copyTracked copies the files git tracks in the clone into a new
// directory, as another clone of the same commit would hold them.
func copyTracked(t *testing.T) string {
	t.Helper()
	list, err := exec.CommandContext(t.Context(), "git", "-C", repoRoot, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
