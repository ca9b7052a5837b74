package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const modulePath = "github.com/specd-io/specd"

// TestGoInstall installs specd as README.md tells a user to, `go install
// github.com/specd-io/specd/cmd/specd@VERSION`, from a module proxy
// holding the committed tree as a release of that version (the zip the
// public proxy would make of the tag), and runs `specd version`. It
// fails if the module cannot be installed so: a replace or exclude
// directive in go.mod, a package that needs a file outside the module
// zip (a nested module, an ignored file), or a version not stamped.
func TestGoInstall(t *testing.T) {
	// It builds every package of specd and its dependencies once more
	// (from a module cache of its own): more than 25 minutes on a loaded
	// two-core machine, so only where asked, as make release-check does.
	if os.Getenv("SPECD_TEST_GO_INSTALL") == "" {
		t.Skip("set SPECD_TEST_GO_INSTALL=1 to build specd with go install from a module proxy of HEAD")
	}
	const version = "v0.9.9"
	proxy := t.TempDir()
	writeModule(t, proxy, version)
	cache := strings.TrimSpace(goEnv(t, "GOMODCACHE"))
	bin := t.TempDir()
	install := exec.CommandContext(t.Context(), "go", "install", modulePath+"/cmd/specd@"+version)
	install.Dir = t.TempDir() // outside any module, as a user runs it
	install.Env = append(os.Environ(),
		// The dependencies come from this machine's module cache, which
		// is laid out as a proxy; only specd comes from the test's.
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(cache, "cache", "download"),
		// The checksum database cannot vouch for a test release of
		// specd, and no machine here reaches it: the dependencies come
		// from this machine's own module cache, verified when it was filled.
		"GOMODCACHE="+t.TempDir(), "GOSUMDB=off", "GOFLAGS=-modcacherw -trimpath",
		"GOBIN="+bin, "GOTOOLCHAIN=local",
		// As the release builds, so that their compiled packages are reused.
		"CGO_ENABLED=0")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/specd@%s: %v\n%s", modulePath, version, err, out)
	}
	out, err := exec.CommandContext(t.Context(), filepath.Join(bin, "specd"), "version", "--short").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != version {
		t.Errorf("specd version: %q, %v; want %s (the module's version)", got, err, version)
	}
}

// writeModule writes the committed tree of the clone into proxy as the
// module's release version, in the layout GOPROXY=file:// reads.
func writeModule(t *testing.T, proxy, version string) {
	t.Helper()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// zip.CreateFromVCS would do both steps, but finds no repository in
	// a git worktree (whose .git is a file).
	tree := committedTree(t)
	if err := zip.CreateFromDir(f, module.Version{Path: modulePath, Version: version}, tree); err != nil {
		t.Fatalf("the module zip of HEAD: %v", err)
	}
	gomod, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": "2026-01-02T03:04:05Z"})
	for name, body := range map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// committedTree writes the tree of HEAD into a new directory, as
// `git archive` exports it for the module proxy.
func committedTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	archive := exec.CommandContext(t.Context(), "sh", "-c", `git -C "$1" archive HEAD | tar -x -C "$2"`, "sh", repoRoot, dir)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive HEAD: %v\n%s", err, out)
	}
	return dir
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return string(out)
}
