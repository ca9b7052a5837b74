package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
)

var (
	docFile    = regexp.MustCompile("(?s)```yaml\n# ([^\n]+)\n(.*?)```")
	docCommand = regexp.MustCompile("(?s)```text\n\\$ specd (check [^\n]*)\n(.*?)```")
)

// docEtcd is the etcd URL of docs/check.md's examples, the socket of
// `make run`'s embedded etcd: the test runs them against an etcd of its
// own, empty, instead.
const docEtcd = "unix://$PWD/data/etcd.sock"

// TestCheckDoc writes the schema files of docs/check.md, runs each
// `$ specd check` example and compares what it prints with the doc.
func TestCheckDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "check.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := docFile.FindAllStringSubmatch(string(doc), -1)
	for _, m := range files {
		name := filepath.Join(dir, filepath.FromSlash(m[1]))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("# "+m[1]+"\n"+m[2]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commands := docCommand.FindAllStringSubmatch(string(doc), -1)
	if len(files) < 3 || len(commands) < 4 {
		t.Fatalf("docs/check.md has %d schema files and %d examples, want 3 and 4", len(files), len(commands))
	}
	etcd := ""
	for _, m := range commands {
		if strings.Contains(m[1], docEtcd) && etcd == "" {
			_, endpoints := etcdtest.StartServing(t)
			etcd = strings.Join(endpoints, ",")
		}
	}
	t.Chdir(dir)
	for _, m := range commands {
		t.Run(m[1], func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(t.Context(), strings.Fields(strings.ReplaceAll(m[1], docEtcd, etcd)), &stdout, &stderr)
			want := 0
			if strings.Contains(m[2], "error: ") || strings.Contains(m[2], `"severity": "error"`) {
				want = 1
			}
			if code != want {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, want, stderr.String())
			}
			if got := stdout.String(); got != m[2] {
				t.Errorf("specd %s printed:\n%s\ndocs/check.md shows:\n%s", m[1], got, m[2])
			}
		})
	}
}
