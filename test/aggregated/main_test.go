package aggregated

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binaries are the programs the tests run, set up once by TestMain.
var binaries struct {
	specd, kubectl, plugins, helm string
	apiserver, controllerManager  string
	etcdmember                    string
}

// repoRoot is the root of the specd module, relative to this package.
const repoRoot = "../.."

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "specd-aggregated-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "aggregated:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := setUpBinaries(dir); err != nil {
		fmt.Fprintln(os.Stderr, "aggregated:", err)
		return 1
	}
	return m.Run()
}

// setUpBinaries takes each program from its environment variable (a path
// relative to the repository root, as the Makefile writes them), or
// builds it: specd, the plugins and etcdmember with go build, kubectl,
// Helm and kube's programs with make (kube's take minutes the first time).
func setUpBinaries(dir string) error {
	builds := []struct {
		target *string
		env    string
		build  []string // run in the repository root, writing to out
		out    string
	}{
		{&binaries.specd, "SPECD_BIN", []string{"go", "build", "-o", "OUT", "./cmd/specd"}, "specd"},
		{&binaries.plugins, "PLUGINS_DIR", []string{"go", "build", "-o", "OUT/", "./examples/plugins/..."}, "plugins"},
		{&binaries.etcdmember, "ETCDMEMBER", []string{"go", "build", "-o", "OUT", "./test/chaos/etcdmember"}, "etcdmember"},
		{&binaries.kubectl, "KUBECTL", []string{"make", "kubectl", "KUBECTL_BIN=OUT"}, "kubectl"},
		{&binaries.helm, "HELM", []string{"make", "helm", "HELM_BIN=OUT"}, "helm"},
		{&binaries.apiserver, "KUBE_APISERVER", []string{"make", "kube-apiserver", "KUBE_APISERVER_BIN=OUT"}, "kube-apiserver"},
		{&binaries.controllerManager, "KUBE_CONTROLLER_MANAGER", []string{"make", "kube-controller-manager", "KUBE_CONTROLLER_MANAGER_BIN=OUT"}, "kube-controller-manager"},
	}
	for _, b := range builds {
		if p := os.Getenv(b.env); p != "" {
			abs, err := fromRoot(p)
			if err != nil {
				return fmt.Errorf("$%s: %w", b.env, err)
			}
			*b.target = abs
			continue
		}
		*b.target = filepath.Join(dir, b.out)
		if err := run(b.build, *b.target); err != nil {
			return err
		}
	}
	return nil
}

func fromRoot(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(repoRoot, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// run runs a build command in the repository root with OUT replaced.
func run(argv []string, out string) error {
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, "OUT", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = repoRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %w\n%s", args, err, output)
	}
	return nil
}
