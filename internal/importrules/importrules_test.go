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
}

// testHelpers are the packages only tests import (see their rule).
var testHelpers = []string{"internal/golden", "internal/testhttp", "internal/testpki", "internal/testproc", "internal/testschemas", "test/..."}

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

var rules = withLeaves([]rule{
	{name: "nothing imports cmd", packages: "...", forbid: []string{"cmd/..."}},
	{name: "the engine never imports server", packages: "engine/...", forbid: []string{"server/...", "cmd/..."}},
	{name: "server does not import cmd", packages: "server/...", forbid: []string{"cmd/..."}},
	{name: "schemas import no engine, server, converters, plugins or check", packages: "schemas/...",
		except: []string{"schemas/serving/..."},
		forbid: []string{"engine/...", "server/...", "converters/...", "plugins/...", "check/...", "cmd/..."}},
	// Serving puts compiled schemas and their conversion rules into
	// service; the engine, the server and the plugins follow it through
	// interfaces it defines, never the other way.
	{name: "schemas/serving sits under the engine", packages: "schemas/serving/...",
		forbid: []string{"engine/...", "server/...", "plugins/...", "cmd/..."}},
	{name: "the engine root imports none of its subsystems", packages: "engine",
		forbid: []string{"engine/migrate/...", "engine/gc/...", "engine/controller/...", "engine/watchcache/...", "engine/background/...", "engine/etcdstorage/...", "engine/namespace/..."}},
	{name: "converters -> schemas at most", packages: "converters/...",
		allow: []string{"converters/...", "schemas/...", "internal/..."}},
	{name: "plugins/sdk imports only the protocol", packages: "plugins/sdk/...",
		allow: []string{"plugins/sdk/...", "plugins/proto/..."}},
	{name: "the plugin host imports no engine, server or cmd", packages: "plugins/...",
		forbid: []string{"engine/...", "server/...", "cmd/..."}},
	// The test helpers are packages of their own so that tests in many
	// packages share them; only tests import them, and other helpers
	// (the e2e harness, gizmotest), which only tests import in turn.
	{name: "only tests and their helpers import the test helpers", packages: "...",
		except: append([]string{"engine/internal/gizmotest"}, testHelpers...),
		forbid: testHelpers},
	{name: "etcdstorage implements the storage contract, not the engine", packages: "engine/etcdstorage/...",
		allow: []string{"engine/storage/...", "engine/etcdstorage/...", "internal/..."}},
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
		t.Errorf("imports that break DESIGN.md's import rules (see the table in internal/importrules):\n%s", strings.Join(broken, "\n"))
	}
}

// TestCheck shows that the rules catch what they should, on made-up
// graphs, so that TestImportRules passing means something.
func TestCheck(t *testing.T) {
	tests := map[string]struct {
		graph map[string][]string
		want  []string
	}{
		"clean": {
			graph: map[string][]string{
				"cmd/specd": {"server", "engine"}, "server": {"engine"}, "engine": {"schemas", "converters", "plugins"},
				"converters": {"schemas"}, "schemas": {"schemas/structural"}, "schemas/structural": {},
				"plugins": {"plugins/proto/v1"}, "plugins/sdk": {"plugins/proto/v1"}, "plugins/proto/v1": {},
				"engine/storage": {}, "engine/etcdstorage": {"engine/storage"},
			},
		},
		"engine imports server": {
			graph: map[string][]string{"engine/gc": {"server"}, "server": {}},
			want:  []string{`rule "the engine never imports server": engine/gc imports server (forbidden: server/..., cmd/...)`},
		},
		"something imports cmd": {
			graph: map[string][]string{"test/e2e/harness": {"cmd/specd"}, "cmd/specd": {}},
			want:  []string{`rule "nothing imports cmd": test/e2e/harness imports cmd/specd (forbidden: cmd/...)`},
		},
		"converters import the engine": {
			graph: map[string][]string{"converters": {"schemas", "engine"}, "engine": {}, "schemas": {}},
			want:  []string{`rule "converters -> schemas at most": converters imports engine (allowed only: converters/..., schemas/..., internal/...)`},
		},
		"sdk imports the host": {
			graph: map[string][]string{"plugins/sdk": {"plugins/proto/v1", "plugins"}, "plugins": {}, "plugins/proto/v1": {}},
			want:  []string{`rule "plugins/sdk imports only the protocol": plugins/sdk imports plugins (allowed only: plugins/sdk/..., plugins/proto/...)`},
		},
		"etcdstorage imports the engine root": {
			graph: map[string][]string{"engine/etcdstorage": {"engine/storage", "engine"}, "engine/storage": {}, "engine": {}},
			want:  []string{`rule "etcdstorage implements the storage contract, not the engine": engine/etcdstorage imports engine (allowed only: engine/storage/..., engine/etcdstorage/..., internal/...)`},
		},
		"a leaf imports the module": {
			graph: map[string][]string{"plugins/hook": {"schemas"}, "schemas": {}},
			want:  []string{`rule "leaf plugins/hook imports nothing of the module": plugins/hook imports schemas (allowed: nothing of the module)`},
		},
		"the server imports a test helper": {
			graph: map[string][]string{"server": {"internal/testhttp"}, "internal/testhttp": {}},
			want:  []string{`rule "only tests and their helpers import the test helpers": server imports internal/testhttp (forbidden: ` + strings.Join(testHelpers, ", ") + `)`},
		},
		"schemas import converters": {
			graph: map[string][]string{"schemas/dirwatch": {"converters"}, "converters": {}},
			want:  []string{`rule "schemas import no engine, server, converters, plugins or check": schemas/dirwatch imports converters (forbidden: engine/..., server/..., converters/..., plugins/..., check/..., cmd/...)`},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, _ := check(rules, tt.graph)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("check:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
