package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/golden"
)

var fencedBlock = regexp.MustCompile("(?s)```(yaml|text)\n(.*?)```")

// TestServingDocBrokenSchema runs the broken schema file of
// docs/serving.md and compares what specd prints with what the doc shows.
func TestServingDocBrokenSchema(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "serving.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for _, m := range fencedBlock.FindAllStringSubmatch(string(doc), -1) {
		if _, seen := blocks[m[1]]; !seen {
			blocks[m[1]] = m[2]
		}
	}
	if blocks["yaml"] == "" || blocks["text"] == "" {
		t.Fatal("docs/serving.md has no yaml schema file and text output block")
	}
	// Run from a directory that holds schemas/shop.yaml, so the paths in
	// the output are the doc's.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", "shop.yaml"), []byte(blocks["yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"serve", "--schemas", "schemas", "--data-dir", t.TempDir()}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got, want := stderr.String(), blocks["text"]; got != want {
		t.Errorf("specd printed:\n%s\ndocs/serving.md shows:\n%s", got, want)
	}
}

// usageFlag is a flag's line in the help `specd serve -h` prints.
var usageFlag = regexp.MustCompile(`(?m)^ +(?:-[a-z], )?--([a-z0-9-]+)`)

// TestServingDocFlags checks that docs/serving.md's flag table names
// every flag of `specd serve`, so a new flag cannot go undocumented.
func TestServingDocFlags(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "serving.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "| `--") {
			rows.WriteString(l + "\n")
		}
	}
	var usage, stderr strings.Builder
	if code := run(t.Context(), []string{"serve", "-h"}, &usage, &stderr); code != 0 {
		t.Fatalf("specd serve -h: exit %d\n%s", code, stderr.String())
	}
	flags := usageFlag.FindAllStringSubmatch(usage.String(), -1)
	if len(flags) < 10 {
		t.Fatalf("%d flags in the usage of specd serve:\n%s", len(flags), usage.String())
	}
	for _, f := range flags {
		if f[1] == "help" {
			continue
		}
		if !strings.Contains(rows.String(), "`--"+f[1]+"`") {
			t.Errorf("docs/serving.md's flag table has no row for --%s", f[1])
		}
	}
}

// overloadExample is the command of docs/operations.md's Overload section
// and what specd prints for it.
var overloadExample = regexp.MustCompile("(?s)## Overload\n.*?```sh\nspecd (.*?)\n```\n\n```text\n(.*?)```")

// TestOperationsDocOverload runs the refused limits of docs/operations.md
// and compares what specd prints with what the doc shows.
func TestOperationsDocOverload(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := overloadExample.FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatal("docs/operations.md's Overload section has no sh command and text output")
	}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), strings.Fields(m[1]), &stdout, &stderr); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if got := stderr.String(); got != m[2] {
		t.Errorf("specd printed:\n%s\ndocs/operations.md shows:\n%s", got, m[2])
	}
}

// cliExample is a command of docs/cli.md and what specd prints for it.
var cliExample = regexp.MustCompile("(?s)```sh\nspecd ([^\n]*)\n```\n\n```text\n(.*?)```")

// TestCLIDoc runs the commands of docs/cli.md that show what specd
// prints, and compares its version example with the version report's
// golden file (server/testdata/version).
func TestCLIDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples := cliExample.FindAllStringSubmatch(string(doc), -1)
	if len(examples) < 2 {
		t.Fatalf("docs/cli.md has %d sh commands with their output", len(examples))
	}
	for _, m := range examples {
		var out strings.Builder
		run(t.Context(), strings.Fields(m[1]), &out, &out)
		if out.String() != m[2] {
			t.Errorf("specd %s printed:\n%s\ndocs/cli.md shows:\n%s", m[1], out.String(), m[2])
		}
	}
	stamped, err := os.ReadFile(filepath.Join("..", "..", "server", "testdata", "version", "stamped.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := golden.Parse(stamped).File("report.txt")
	if !strings.Contains(string(doc), "```text\n"+want+"```") {
		t.Errorf("docs/cli.md does not show specd version's output as server/testdata/version/stamped.txtar has it:\n%s", want)
	}
}
