package importrules

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/specd-io/specd"

// leaves import nothing of the module: contracts that every side of a
// boundary imports (the storage contract, the plugin hook types). Add a
// package here when it is created; a leaf that does not exist fails the
// test, as any rule that matches no package does.
var leaves = []string{
	"engine/storage",
	"plugins/hook",
	"internal/metrics",
}

// testHelpers are the packages only tests import (see their rule).
var testHelpers = []string{"internal/configvolume", "internal/golden", "internal/testhttp", "internal/testpki", "internal/testproc", "internal/testschemas", "test/..."}

// rule says what the module packages matching packages may import of the
// module. Patterns are module-relative: "engine" is the engine root
// package only, "engine/..." is it and every package under it.
type rule struct {
	name     string
	packages string
	// except are packages that packages matches and the rule leaves to
	// a rule of their own.
	except []string
	// forbid lists what they may not import; allow, when not nil, is the
	// only thing they may import (nil: anything not forbidden; empty:
	// nothing of the module).
	forbid []string
	allow  []string
}

// The floors, from the top: cmd; the tests and the load tool; server;
// engine; serving (the served set, its gate and swap); check; converters;
// the plugins; schemas; internal. Each floor imports only floors below it
// (docs/architecture.md draws the same picture). Every package of
// the module falls under one of the floor rules (TestEveryPackageHasARule).
var rules = withLeaves([]rule{
	{name: "nothing imports cmd", packages: "...", forbid: []string{"cmd/..."}},
	{name: "cmd wires everything", packages: "cmd/...", forbid: []string{"test/..."}},
	{name: "the tests import no command", packages: "test/...", forbid: []string{"cmd/..."}},
	{name: "the load tool stands alone", packages: "loadtest/...", allow: []string{"loadtest/...", "internal/..."}},
	{name: "server imports no command or test", packages: "server/...",
		forbid: []string{"cmd/...", "test/...", "loadtest/...", "plugins"}},
	{name: "the engine never imports server, and names no plugin host", packages: "engine/...",
		forbid: []string{"server/...", "cmd/...", "test/...", "loadtest/...", "plugins", "plugins/sdk/..."}},
	{name: "the engine root imports none of its subsystems", packages: "engine",
		allow: []string{"engine/storage", "engine/fieldmanager", "engine/internal/...", "schemas/...", "converters", "plugins/hook", "internal/..."}},
	{name: "etcdstorage implements the storage contract, not the engine", packages: "engine/etcdstorage/...",
		allow: []string{"engine/storage/...", "engine/etcdstorage/...", "internal/..."}},
	{name: "memstorage implements the storage contract, not the engine", packages: "engine/memstorage/...",
		allow: []string{"engine/storage/...", "engine/memstorage/...", "internal/..."}},
	{name: "serving stands on schemas, converters and check", packages: "serving/...",
		allow: []string{"serving/...", "check/...", "converters/...", "schemas/...", "internal/..."}},
	{name: "check stands on schemas and converters", packages: "check/...",
		allow: []string{"check/...", "converters/...", "schemas/...", "internal/..."}},
	{name: "converters -> schemas at most", packages: "converters/...",
		allow: []string{"converters/...", "schemas/...", "internal/..."}},
	{name: "the plugin host imports no engine, server or cmd", packages: "plugins/...",
		allow: []string{"plugins/...", "schemas/...", "internal/..."}},
	{name: "plugins/sdk imports only the protocol", packages: "plugins/sdk/...",
		allow: []string{"plugins/sdk/...", "plugins/proto/..."}},
	{name: "schemas import only schemas", packages: "schemas/...",
		allow: []string{"schemas/...", "internal/..."}},
	{name: "internal imports only internal", packages: "internal/...",
		allow: []string{"internal/..."}},
	{name: "examples are plugins, written with the SDK only", packages: "examples/...",
		allow: []string{"plugins/sdk/..."}},
	{name: "hack's tools stand alone", packages: "hack/...", allow: []string{}},
	// specdtest is imported by users' modules: it runs the specd binary
	// and needs nothing of specd in the test's process.
	{name: "specdtest stands alone, for users' modules", packages: "specdtest/...", allow: []string{}},
	// The test helpers are packages of their own so that tests in many
	// packages share them; only tests import them, and other helpers
	// (the e2e harness, gizmotest), which only tests import in turn.
	{name: "only tests and their helpers import the test helpers", packages: "...",
		except: append([]string{"engine/internal/gizmotest"}, testHelpers...),
		forbid: testHelpers},
})

// withLeaves returns rules and a rule for each of leaves.
func withLeaves(rules []rule) []rule {
	for _, leaf := range leaves {
		rules = append(rules, rule{name: "leaf " + leaf + " imports nothing of the module", packages: leaf, allow: []string{}})
	}
	return rules
}

// match reports whether the module-relative package p matches pattern.
func match(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

func matchAny(patterns []string, p string) bool {
	for _, pat := range patterns {
		if match(pat, p) {
			return true
		}
	}
	return false
}

// violation returns why r forbids pkg to import imp ("" when it may).
func (r rule) violation(imp string) string {
	if matchAny(r.forbid, imp) {
		return "forbidden: " + strings.Join(r.forbid, ", ")
	}
	if r.allow != nil && !matchAny(r.allow, imp) {
		if len(r.allow) == 0 {
			return "allowed: nothing of the module"
		}
		return "allowed only: " + strings.Join(r.allow, ", ")
	}
	return ""
}

// check returns one line per import of graph (module-relative package ->
// its module-relative imports) that breaks a rule, and the rules whose
// packages are not in graph.
func check(rules []rule, graph map[string][]string) (broken, unused []string) {
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, r := range rules {
		matched := false
		for _, p := range pkgs {
			if !match(r.packages, p) || matchAny(r.except, p) {
				continue
			}
			matched = true
			for _, imp := range graph[p] {
				if why := r.violation(imp); why != "" {
					broken = append(broken, fmt.Sprintf("rule %q: %s imports %s (%s)", r.name, p, imp, why))
				}
			}
		}
		if !matched {
			unused = append(unused, fmt.Sprintf("rule %q: no package matches %s", r.name, r.packages))
		}
	}
	return broken, unused
}

// moduleGraph lists every package of the module with the module packages
// its non-test files import, module-relative ("." is the module root).
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the import rules need the go command: %v", err)
	}
	cmd := exec.Command(gocmd, "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{if .Error}} ERROR:{{.Error}}{{end}}", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	statSources(t, gocmd)
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if i := strings.Index(line, " ERROR:"); i >= 0 {
			t.Fatalf("go list: %s", line[i+len(" ERROR:"):])
		}
		fields := strings.Fields(line)
		p, ok := rel(fields[0])
		if !ok {
			continue
		}
		imps := []string{}
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok {
				imps = append(imps, r)
			}
		}
		graph[p] = imps
	}
	if len(graph) == 0 {
		t.Fatal("go list found no package of the module")
	}
	return graph
}

// statSources reads every directory of the module and stats its Go files
// and go.mod. go list runs in another process, so go test would otherwise
// not know which files the result depends on, and would replay a cached
// pass after an import changed.
func statSources(t *testing.T, gocmd string) {
	t.Helper()
	out, err := exec.Command(gocmd, "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("reading the module's files: %v", err)
	}
}

// rel returns the module-relative path of a module package.
func rel(importPath string) (string, bool) {
	if importPath == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(importPath, module+"/")
	return r, ok
}

func TestImportRules(t *testing.T) {
	graph := moduleGraph(t)
	broken, unused := check(rules, graph)
	// A rule that matches no package (a package renamed or removed)
	// would pass for ever: the table must follow the tree.
	for _, u := range unused {
		t.Error(u)
	}
	if len(broken) > 0 {
		t.Errorf("imports that break the import rules (the table in internal/importrules; docs/architecture.md):\n%s", strings.Join(broken, "\n"))
	}
}

// TestEveryPackageHasARule: every package of the module is under a
// rule of its own floor, not only the rule that nothing imports cmd.
func TestEveryPackageHasARule(t *testing.T) {
	for p := range moduleGraph(t) {
		covered := false
		for _, r := range rules {
			if r.packages != "..." && match(r.packages, p) && !matchAny(r.except, p) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("package %s is under no rule: add it to a floor in internal/importrules", p)
		}
	}
}

// TestCheck shows that each rule catches what it should: for every rule,
// a made-up graph in which one of its packages makes one import the rule
// forbids is reported, and the same graph without that import is clean.
func TestCheck(t *testing.T) {
	graph := moduleGraph(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			from, bad, ok := badImport(r, graph)
			if !ok {
				t.Fatalf("no package of the module to break rule %q with", r.name)
			}
			broken, _ := check([]rule{r}, map[string][]string{from: {bad}, bad: {}})
			if len(broken) != 1 || !strings.Contains(broken[0], from+" imports "+bad) {
				t.Errorf("%s importing %s: check found %q, want that import", from, bad, broken)
			}
			if clean, _ := check([]rule{r}, map[string][]string{from: {}, bad: {}}); len(clean) > 0 {
				t.Errorf("without the import: %q", clean)
			}
		})
	}
}

// badImport finds a package of graph under r, and a package of graph r
// forbids it to import.
func badImport(r rule, graph map[string][]string) (from, bad string, ok bool) {
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, f := range pkgs {
		if !match(r.packages, f) || matchAny(r.except, f) {
			continue
		}
		for _, b := range pkgs {
			if b != f && r.violation(b) != "" {
				return f, b, true
			}
		}
	}
	return "", "", false
}
