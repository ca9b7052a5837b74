package docs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testproc"
	"github.com/specd-io/specd/test/e2e/harness"
)

// A workdir page (the README's first screen, docs/tutorial.md) runs as a
// reader types it, in a new empty directory: no specd is started for it.
// Its blocks, top to bottom:
//
//   - a block whose first line is a comment naming a file
//     (`# schemas/gadgets.yaml`, `// go.mod`) is written there, whole;
//   - console blocks run `specd`, `kubectl`, `go` and
//     `export KUBECONFIG=...` in the directory. `specd serve` runs in the
//     background until the page ends (a second one stops the first), on a
//     port the kernel picks: the test's only change to it. The lines
//     after it must appear in its log, in order, before it is ready.
//   - specd reloads a changed schema directory a moment after the change,
//     as a reader waits for it: the first kubectl command after a file
//     is written while specd serves is run again until it gives what the
//     page shows, for up to reloadWait.
//
// The directory holds a link to the repository's examples/, so that
// examples/... paths work as in a clone. A go.mod that requires specd's
// module gets a replace by this checkout: the page names the version a
// user requires, which is not published from here.
//
//	<!-- docs-test: workdir -->
var docWorkdirLine = regexp.MustCompile(`(?m)^<!-- docs-test: workdir -->$`)

func docWorkdir(md string) bool { return docWorkdirLine.MatchString(md) }

// fileComment is the first line of a block that is a whole file.
var fileComment = regexp.MustCompile(`^(?:#|//) ([\w.-]+(?:/[\w.-]+)*\.(?:yaml|yml|json|go|mod))$`)

// workdirStep is a file to write or a command to run.
type workdirStep struct {
	Line    int
	File    string // path in the directory
	Content string
	Cmd     *kubectlExample
}

// parseWorkdir returns the steps of a workdir page.
func parseWorkdir(md string) ([]workdirStep, error) {
	fs, err := harness.Fences(md)
	if err != nil {
		return nil, err
	}
	var steps []workdirStep
	for _, f := range fs {
		if f.Info == "console" {
			cs, err := parseConsole(f, "specd", "kubectl", "go", "export")
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				steps = append(steps, workdirStep{Line: c.Line, Cmd: c.Kubectl})
			}
			continue
		}
		if len(f.Lines) > 0 {
			if m := fileComment.FindStringSubmatch(f.Lines[0]); m != nil {
				steps = append(steps, workdirStep{Line: f.Line, File: m[1], Content: strings.Join(f.Lines, "\n") + "\n"})
			}
		}
	}
	return steps, nil
}

// workdir is a workdir page's directory and what runs in it.
type workdir struct {
	t          *testing.T
	dir, home  string
	kubeconfig string
	serving    *testproc.Proc
	// changed: a file was written while specd serves, and no kubectl
	// command has matched since.
	changed bool
}

// reloadWait bounds how long a kubectl command waits for specd to have
// reloaded the files the page changed.
const reloadWait = 30 * time.Second

func runWorkdirDoc(t *testing.T, name, md string) {
	steps, err := parseWorkdir(md)
	if err != nil {
		t.Fatalf("%s:%v", name, err)
	}
	w := newWorkdir(t)
	for _, step := range steps {
		where := fmt.Sprintf("%s:%d", name, step.Line)
		if step.Cmd != nil {
			where += ": $ " + step.Cmd.Command
		} else {
			where += ": " + step.File
		}
		if err := w.run(step); err != nil {
			// Later steps build on this one.
			t.Fatalf("%s\n%v", where, err)
		}
		t.Logf("%s: ok", where)
	}
}

func newWorkdir(t *testing.T) *workdir {
	w := &workdir{t: t, dir: t.TempDir(), home: t.TempDir()}
	examples, err := filepath.Abs(filepath.Join(harness.RepoRoot, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(w.dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.stopServing)
	return w
}

func (w *workdir) run(step workdirStep) error {
	if step.Cmd == nil {
		w.changed = w.serving != nil
		return w.writeFile(step.File, step.Content)
	}
	ex := step.Cmd
	switch {
	case ex.Program == "export":
		return w.export(ex.Args)
	case ex.Program == "specd" && len(ex.Args) > 0 && ex.Args[0] == "serve":
		return w.serve(ex)
	}
	if ex.Program == "kubectl" && w.changed {
		return w.afterReload(ex)
	}
	return w.runOnce(ex)
}

func (w *workdir) runOnce(ex *kubectlExample) error {
	timeout := harness.KubectlTimeout
	if ex.Program == "go" {
		timeout = 5 * time.Minute // a build
	}
	ctx, cancel := context.WithTimeout(w.t.Context(), timeout)
	defer cancel()
	return runAndCompare(ctx, w.command(ctx, ex), ex)
}

// afterReload runs a kubectl command until it gives what the page shows,
// or reloadWait has passed.
func (w *workdir) afterReload(ex *kubectlExample) error {
	deadline := time.Now().Add(reloadWait)
	for {
		err := w.runOnce(ex)
		if err == nil {
			w.changed = false
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not so %s after the files changed: %w", reloadWait, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// writeFile writes a file block; a go.mod requiring specd's module is
// pointed at this checkout.
func (w *workdir) writeFile(name, content string) error {
	if filepath.Base(name) == "go.mod" && strings.Contains(content, "github.com/specd-io/specd ") {
		root, err := filepath.Abs(harness.RepoRoot)
		if err != nil {
			return err
		}
		content += "\nreplace github.com/specd-io/specd => " + root + "\n"
	}
	p := filepath.Join(w.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// export takes KUBECONFIG=PATH, the one variable pages set.
func (w *workdir) export(args []string) error {
	v, ok := "", len(args) == 1
	if ok {
		v, ok = strings.CutPrefix(args[0], "KUBECONFIG=")
	}
	if !ok {
		return fmt.Errorf("only `export KUBECONFIG=PATH` is run, not %q", args)
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(w.dir, v)
	}
	w.kubeconfig = v
	return nil
}

// command is the example's program run in the directory.
func (w *workdir) command(ctx context.Context, ex *kubectlExample) *exec.Cmd {
	bin, args := ex.Program, ex.Args
	env := append(os.Environ(), "HOME="+w.home, "NO_COLOR=1")
	switch bin {
	case "specd":
		bin = harness.Binaries.Specd
	case "kubectl":
		bin = harness.Binaries.Kubectl
		args = append([]string{"--request-timeout", "20s"}, args...)
		env = append(env, "KUBECONFIG="+w.kubeconfig, "KUBERC=off")
	case "go":
		// The home is the test's: keep Go's caches where they are.
		env = append(env, "GOWORK=off", "GOFLAGS=-mod=mod", "GOPATH="+goEnv(w.t, "GOPATH"), "GOCACHE="+goEnv(w.t, "GOCACHE"))
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = w.dir, env
	return cmd
}

// serve starts `specd serve` as written but for --listen, and waits until
// it is ready and has logged the example's lines.
func (w *workdir) serve(ex *kubectlExample) error {
	w.stopServing()
	w.changed = false
	args := withLoopbackPort(ex.Args)
	cmd := exec.Command(harness.Binaries.Specd, args...)
	cmd.Dir = w.dir
	proc, err := testproc.Start(cmd)
	if err != nil {
		return err
	}
	w.serving = proc
	dataDir := flagValue(args, "--data-dir", "data")
	readyClient(w.t, proc, filepath.Join(w.dir, dataDir, "admin.kubeconfig"))
	return logged(ex.WantStdout, proc.Out().String())
}

func (w *workdir) stopServing() {
	if w.serving == nil {
		return
	}
	if !w.serving.Stop(os.Interrupt, 30*time.Second) {
		w.t.Errorf("specd serve did not stop within 30s of SIGINT")
	}
	if w.t.Failed() {
		w.t.Logf("--- specd serve's log ---\n%s", w.serving.Out().String())
	}
	w.serving = nil
}

// withLoopbackPort is args with --listen on a port the kernel picks.
func withLoopbackPort(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--listen" && i+1 < len(args):
			i++
		case strings.HasPrefix(args[i], "--listen="):
		default:
			out = append(out, args[i])
		}
	}
	return append(out, "--listen", "127.0.0.1:0")
}

// flagValue is the value of a flag given as "--name value" or
// "--name=value", or def.
func flagValue(args []string, name, def string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return def
}

// logged checks that the wanted lines are lines of log, in order.
func logged(want []string, log string) error {
	lines := strings.Split(log, "\n")
	i := 0
	for _, w := range want {
		w = strings.Join(strings.Fields(w), " ")
		for i < len(lines) && !harness.LineMatches(w, strings.Join(strings.Fields(lines[i]), " ")) {
			i++
		}
		if i == len(lines) {
			return fmt.Errorf("specd serve did not log %q (in this order)\n--- its log ---\n%s", w, log)
		}
		i++
	}
	return nil
}

// goEnv is `go env NAME` of the test's environment.
func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}
