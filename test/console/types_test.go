package console

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTypes type-checks the console's modules by their JSDoc types
// (server/console/jsconfig.json) with the TypeScript that
// test/clients/ts pins, installed by npm ci into a scratch directory.
func TestTypes(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is not installed: the console's type check needs node and npm on the PATH")
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "test", "clients", "ts", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config, err := filepath.Abs(filepath.Join(repoRoot, "server", "console", "jsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	npm(t, dir, "npm", "ci", "--no-audit", "--no-fund")
	npm(t, dir, "npx", "--no-install", "tsc", "-p", config)
}

func npm(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}
