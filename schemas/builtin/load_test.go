package builtin_test

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/serving"
)

const (
	rbacFile     = "builtin/rbac.authorization.k8s.io/v1.yaml"
	builtinFiles = 5 // core, apiextensions.k8s.io, coordination.k8s.io, events.k8s.io and RBAC
)

func TestLoaderLoadsBuiltinsWithTheDirectory(t *testing.T) {
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, map[string]string{"tools.yaml": testschemas.Tools})
	l := schemas.NewLoader(dir, builtin.Schemas())
	for range 2 { // a reload keeps them
		reg, digests, err := l.Load()
		if err != nil {
			t.Fatal(err)
		}
		if reg.Group("tools.example.com") == nil || reg.Group("rbac.authorization.k8s.io") == nil {
			t.Fatalf("groups %v: want tools.example.com and rbac.authorization.k8s.io", groupNames(reg))
		}
		if rv := reg.Lookup("rbac.authorization.k8s.io", "v1", "roles"); rv == nil || rv.File != rbacFile {
			t.Fatalf("roles: %+v, want declared by %s", rv, rbacFile)
		}
		if _, ok := digests[rbacFile]; !ok || len(digests) != builtinFiles+1 {
			t.Errorf("digests %v: want the %d built-in files and tools.yaml", digests, builtinFiles)
		}
	}
}

// TestUserFileCannotTakeBuiltinGroup: a user file declaring a reserved
// group is a problem naming the file and x-specd.group, and the rest of
// the directory is not served either.
func TestUserFileCannotTakeBuiltinGroup(t *testing.T) {
	for _, group := range builtin.ReservedGroups() {
		t.Run(group, func(t *testing.T) {
			dir := t.TempDir()
			mine := strings.Replace(testschemas.Tools, "group: tools.example.com", "group: "+strconv.Quote(group), 1)
			testschemas.WriteFiles(t, dir, map[string]string{"mine.yaml": mine, "things.yaml": testschemas.Things})
			_, _, err := schemas.NewLoader(dir, builtin.Schemas()).Load()
			var le *schemas.LoadError
			if !errors.As(err, &le) || len(le.Problems) != 1 {
				t.Fatalf("got %v, want one problem", err)
			}
			p := le.Problems[0]
			if p.File != filepath.Join(dir, "mine.yaml") || p.Pointer != "/x-specd/group" || !strings.Contains(p.Message, "built into specd") {
				t.Errorf("problem %s: want mine.yaml#/x-specd/group, built into specd", p)
			}
		})
	}
}

func TestProblemsInBuiltinFilesNameThem(t *testing.T) {
	broken := schemas.Builtin{Name: "builtin", FS: fstest.MapFS{
		"core.example.com/v1.yaml": {Data: []byte("openapi: 3.0.3\ninfo: {title: x, version: v1}\nx-specd: {group: core.example.com}\n")},
	}}
	_, _, err := schemas.NewLoader(t.TempDir(), broken).Load()
	var le *schemas.LoadError
	if !errors.As(err, &le) || len(le.Problems) == 0 {
		t.Fatalf("got %v, want problems", err)
	}
	for _, p := range le.Problems {
		if p.File != "builtin/core.example.com/v1.yaml" {
			t.Errorf("problem %s does not name builtin/core.example.com/v1.yaml", p)
		}
	}
}

func TestServingServesBuiltins(t *testing.T) {
	cfg := serving.Config{Dir: t.TempDir(), Builtin: []schemas.Builtin{builtin.Schemas()}}
	testschemas.WriteFiles(t, cfg.Dir, map[string]string{"tools.yaml": testschemas.Tools})
	set, err := serving.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if set.Registry().Lookup("rbac.authorization.k8s.io", "v1", "clusterrolebindings") == nil {
		t.Errorf("clusterrolebindings not served: groups %v", groupNames(set.Registry()))
	}
}

// TestServingRefusesToDisableEssentials: specd's RBAC authorization reads
// roles and bindings, and the review groups are served in code.
func TestServingRefusesToDisableEssentials(t *testing.T) {
	for _, name := range []string{"rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1/roles", "authorization.k8s.io"} {
		cfg := serving.Config{Dir: t.TempDir(), Builtin: []schemas.Builtin{builtin.Schemas()}, Disable: []string{name}}
		set, err := serving.New(t.Context(), cfg)
		if err == nil {
			set.Close()
			t.Fatalf("--disable %s was accepted", name)
		}
		if !errors.Is(err, schemas.ErrBuiltin) || !strings.Contains(err.Error(), "--disable "+name) {
			t.Errorf("--disable %s: %v", name, err)
		}
	}
}

func groupNames(reg *schemas.Registry) []string {
	var names []string
	for _, g := range reg.Groups() {
		names = append(names, g.Name)
	}
	return names
}
