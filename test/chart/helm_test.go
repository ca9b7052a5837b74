package chart

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// repoRoot is the root of the specd repository, from this package.
const repoRoot = "../.."

// chartDir is the chart under test.
var chartDir = filepath.Join(repoRoot, "charts", "specd")

// helmTimeout bounds one helm command; buildTimeout a cold `make helm`.
const (
	helmTimeout  = time.Minute
	buildTimeout = 20 * time.Minute
)

var helmBin struct {
	once sync.Once
	path string
	err  error
}

// helmPath is $HELM (relative to the repository root), or a Helm built
// by `make helm` on first use.
func helmPath(t *testing.T) string {
	t.Helper()
	helmBin.once.Do(func() {
		if p := os.Getenv("HELM"); p != "" {
			// Relative to the repository root, as the Makefile writes it.
			if !filepath.IsAbs(p) {
				p = filepath.Join(repoRoot, p)
			}
			helmBin.path, helmBin.err = filepath.Abs(p)
			return
		}
		dir, err := os.MkdirTemp("", "specd-chart-helm-")
		if err != nil {
			helmBin.err = err
			return
		}
		helmBin.path = filepath.Join(dir, "helm")
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "make", "-s", "helm", "HELM_BIN="+helmBin.path)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			helmBin.err = fmt.Errorf("make helm: %w\n%s", err, out)
		}
	})
	if helmBin.err != nil {
		t.Fatal(helmBin.err)
	}
	return helmBin.path
}

// readChart reads every file of the chart, so that go test's cache knows
// the results depend on them (it records what the test opens, not what
// helm does).
func readChart(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(chartDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runHelm runs helm with args and its own empty home, so that no user
// configuration changes what is tested; it returns stdout, and stderr in
// the error.
func runHelm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	readChart(t)
	ctx, cancel := context.WithTimeout(context.Background(), helmTimeout)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, helmPath(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// valuesFile writes values (JSON is YAML) for `helm -f`.
func valuesFile(t *testing.T, values map[string]any) string {
	t.Helper()
	data, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// release and namespace of every rendering.
const (
	release   = "shop"
	namespace = "shop-system"
	fullname  = "shop-specd"
)

// template renders the chart with values, as release in namespace.
func template(t *testing.T, values map[string]any) (string, error) {
	t.Helper()
	return runHelm(t, "template", release, chartDir, "--namespace", namespace, "-f", valuesFile(t, values))
}

// render is template of values that must render, split into objects.
func render(t *testing.T, values map[string]any) objects {
	t.Helper()
	out, err := template(t, values)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

// object is one rendered manifest, as its YAML decodes.
type object map[string]any

func (o object) kind() string { return o["kind"].(string) }
func (o object) name() string { return o["metadata"].(map[string]any)["name"].(string) }

// objects are the manifests of one rendering.
type objects []object

func decode(t *testing.T, out string) objects {
	t.Helper()
	var objs objects
	d := yaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	for {
		var o object
		err := d.Decode(&o)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("helm template's output: %v\n%s", err, out)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
}

// get decodes the object of kind and name into into (a typed object of
// k8s.io/api), failing the test if there is none.
func (objs objects) get(t *testing.T, kind, name string, into any) {
	t.Helper()
	for _, o := range objs {
		if o.kind() == kind && o.name() == name {
			data, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			if err := sigsyaml.UnmarshalStrict(data, into); err != nil {
				t.Fatalf("%s %s: %v", kind, name, err)
			}
			return
		}
	}
	t.Fatalf("no %s %s in %v", kind, name, objs.names())
}

// names are the objects' kinds and names, in order.
func (objs objects) names() []string {
	var ns []string
	for _, o := range objs {
		ns = append(ns, o.kind()+"/"+o.name())
	}
	return ns
}

// has reports whether there is an object of kind.
func (objs objects) has(kind string) bool {
	for _, o := range objs {
		if o.kind() == kind {
			return true
		}
	}
	return false
}

// ofKind are the objects of kind.
func (objs objects) ofKind(kind string) objects {
	var out objects
	for _, o := range objs {
		if o.kind() == kind {
			out = append(out, o)
		}
	}
	return out
}
