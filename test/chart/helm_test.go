package chart

import (
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

	"github.com/specd-io/specd/test/testhelm"
)

// repoRoot is the root of the specd repository, from this package.
const repoRoot = "../.."

// chartDir is the chart under test.
var chartDir = filepath.Join(repoRoot, "charts", "specd")

// buildTimeout bounds a cold build of a tool (Helm, kubectl,
// kube-apiserver).
const buildTimeout = 30 * time.Minute

// tool is a program the tests run: $ENV (relative to the repository
// root, as the Makefile writes it) when set, else built on first use by
// build, which writes it to out.
type tool struct {
	env   string
	build func(ctx context.Context, out string) *exec.Cmd
	once  sync.Once
	path  string
	err   error
}

var (
	helmTool = &tool{env: "HELM", build: func(ctx context.Context, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "make", "-s", "helm", "HELM_BIN="+out)
	}}
	kubectlTool = &tool{env: "KUBECTL", build: func(ctx context.Context, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "make", "-s", "kubectl", "KUBECTL_BIN="+out)
	}}
	// kube-apiserver of test/kube; minutes to build the first time.
	apiserverTool = &tool{env: "KUBE_APISERVER", build: func(ctx context.Context, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "make", "-s", "kube-apiserver", "KUBE_APISERVER_BIN="+out)
	}}
)

// Path returns the tool's binary, building it the first time.
func (b *tool) Path(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		if p := os.Getenv(b.env); p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(repoRoot, p)
			}
			b.path, b.err = filepath.Abs(p)
			return
		}
		b.path, b.err = b.buildIt()
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func (b *tool) buildIt() (string, error) {
	dir, err := os.MkdirTemp("", "specd-chart-tool-")
	if err != nil {
		return "", err
	}
	out, err := filepath.Abs(filepath.Join(dir, strings.ToLower(b.env)))
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := b.build(ctx, out)
	if cmd.Dir == "" {
		cmd.Dir = repoRoot
	}
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, output)
	}
	return out, nil
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

// runHelm runs the pinned helm with args (testhelm.Run) after reading
// the chart.
func runHelm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	readChart(t)
	return testhelm.Run(t, helmTool.Path(t), args...)
}

// valuesFile writes values for `helm -f`.
func valuesFile(t *testing.T, values map[string]any) string {
	t.Helper()
	return testhelm.ValuesFile(t, values)
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
	readChart(t)
	return testhelm.Template(t, helmTool.Path(t), chartDir, release, namespace, values)
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
