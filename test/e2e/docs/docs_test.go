package docs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/test/e2e/harness"
)

const (
	// docRequestTimeout bounds one HTTP example.
	docRequestTimeout = 20 * time.Second
	// docWatchTimeout bounds the wait for the events a watch example shows.
	docWatchTimeout = 15 * time.Second
)

// TestDocs runs the examples of every Markdown file in docs/ (and of
// README.md), top to bottom, each file against a fresh specd serving the
// example schemas, with the pinned kubectl: `http` blocks are sent and
// their `http-response` checked, `console` blocks are kubectl commands
// whose output is checked. docs/README.md describes the format; files
// without examples are left out.
func TestDocs(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(harness.RepoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(harness.RepoRoot, "README.md"))
	ran := 0
	for _, file := range files {
		name, _ := filepath.Rel(harness.RepoRoot, file)
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if docWorkdir(string(md)) {
			ran++
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runWorkdirDoc(t, name, string(md))
			})
			continue
		}
		steps, err := parseDoc(string(md))
		if err != nil {
			t.Errorf("%s:%v", name, err)
			continue
		}
		served, secure := docSchemas(string(md)), docSecure(string(md))
		if docAggregated(string(md)) {
			t.Logf("%s: run against a Kubernetes host by test/aggregated", name)
			continue
		}
		if len(steps) == 0 {
			t.Logf("%s: no examples to run", name)
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runDoc(t, name, served, secure, steps)
		})
	}
	if ran == 0 {
		t.Error("no file in docs/ has examples to run; docs/api.md should")
	}
}

// runDoc runs one file's steps in order against its own specd, serving
// the example schemas and, merged with them, the schema directories the
// page names (docSchemas); over TLS if the page asks (docSecure).
func runDoc(t *testing.T, name string, extra []string, secure bool, steps []docStep) {
	opts := harness.SpecdOptions{Secure: secure}
	if len(extra) > 0 {
		opts.Schemas = t.TempDir()
		for _, dir := range append([]string{"examples/schemas"}, extra...) {
			if err := os.CopyFS(opts.Schemas, os.DirFS(filepath.Join(harness.RepoRoot, dir))); err != nil {
				t.Fatalf("%s: serving %s: %v", name, dir, err)
			}
		}
	}
	s := harness.StartSpecd(t, opts)
	k := harness.NewKubectl(t, s)
	client := *s.Client
	client.Timeout = docRequestTimeout
	shift, err := startRevision(t.Context(), &client, s.URL)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	crdWritten := false
	for _, step := range steps {
		where := fmt.Sprintf("%s:%d", name, step.Line)
		var err error
		switch {
		case step.HTTP != nil:
			where += ": " + step.HTTP.Method + " " + step.HTTP.Target
			err = runHTTPExample(t.Context(), &client, s.URL, shift.example(step.HTTP))
		case crdWritten:
			where += ": $ " + step.Kubectl.Command
			err = runKubectlAfterReload(t, k, step.Kubectl)
		default:
			where += ": $ " + step.Kubectl.Command
			err = runKubectlExample(t, k, step.Kubectl)
		}
		crdWritten = step.Kubectl != nil && writesCRD(step.Kubectl)
		if err != nil {
			t.Errorf("%s\n%v", where, err)
		} else {
			t.Logf("%s: ok", where)
		}
	}
}

// isWatch says whether a request asks for a stream of watch events.
func isWatch(target string) bool {
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	w := u.Query().Get("watch")
	return w == "true" || w == "1" || strings.Contains(u.Path, "/watch/")
}

func runHTTPExample(ctx context.Context, client *http.Client, base string, ex *httpExample) error {
	want, err := harness.DecodeJSONValues(ex.WantBody)
	if err != nil {
		return fmt.Errorf("the http-response block (line %d) has a body that is not JSON: %v", ex.RespLine, err)
	}
	watch := isWatch(ex.Target)
	if !watch && len(want) > 1 {
		return fmt.Errorf("the http-response block (line %d) has %d JSON values; only a watch answers more than one", ex.RespLine, len(want))
	}
	timeout := docRequestTimeout
	if watch {
		timeout = docWatchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := sendHTTPExample(ctx, client, base, ex, watch)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	var got []any
	var raw []byte
	if watch && resp.StatusCode == ex.Code && len(want) > 0 {
		got, raw, err = readEvents(resp.Body, len(want))
	} else {
		raw, err = io.ReadAll(resp.Body)
		if err == nil && len(want) > 0 {
			got, err = decodeBody(resp.Header.Get("Content-Type"), raw)
		}
	}
	problems := checkStatusAndHeaders(ex, resp)
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("reading the body: %v", err))
	case resp.StatusCode == ex.Code:
		problems = append(problems, checkBody(want, got, watch)...)
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s\n--- want (http-response, line %d) ---\nHTTP %d\n%s\n--- got ---\nHTTP %d\n%s",
		strings.Join(problems, "\n"), ex.RespLine, ex.Code, ex.WantBody, resp.StatusCode, harness.Pretty(raw))
}

// sendHTTPExample sends the request of an example as written.
func sendHTTPExample(ctx context.Context, client *http.Client, base string, ex *httpExample, watch bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, ex.Method, base+ex.Target, strings.NewReader(ex.Body))
	if err != nil {
		return nil, err
	}
	req.Header = ex.Header.Clone()
	if ex.Body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	c := *client
	if watch {
		c.Timeout = 0 // the context bounds the stream
	}
	return c.Do(req)
}

// checkStatusAndHeaders compares the status code and the headers the
// example names; a header whose value is "..." must be there with any
// value (an Audit-Id, say).
func checkStatusAndHeaders(ex *httpExample, resp *http.Response) []string {
	var problems []string
	if resp.StatusCode != ex.Code {
		problems = append(problems, fmt.Sprintf("status %d, want %d", resp.StatusCode, ex.Code))
	}
	names := slices.Sorted(maps.Keys(ex.WantHeader))
	for _, name := range names {
		for _, v := range ex.WantHeader[name] {
			// "..." asks only that the header be there, as in a body.
			if v == "..." && len(resp.Header.Values(name)) > 0 {
				continue
			}
			if !slices.Contains(resp.Header.Values(name), v) {
				problems = append(problems, fmt.Sprintf("header %s: %q, want %q", name, resp.Header.Values(name), v))
			}
		}
	}
	return problems
}

// checkBody compares the decoded body (or watch events) with the expected
// values.
func checkBody(want, got []any, watch bool) []string {
	var problems []string
	if len(got) < len(want) {
		problems = append(problems, fmt.Sprintf("%d events before the stream ended or %s passed, want %d", len(got), docWatchTimeout, len(want)))
	}
	for i := 0; i < len(want) && i < len(got); i++ {
		at := "$"
		if watch {
			at = fmt.Sprintf("event %d", i+1)
		}
		problems = append(problems, harness.JSONSubset(want[i], got[i], at)...)
	}
	return problems
}

// decodeBody decodes a JSON or YAML response body.
func decodeBody(contentType string, raw []byte) ([]any, error) {
	if strings.Contains(contentType, "yaml") {
		j, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("not YAML: %v", err)
		}
		raw = j
	}
	vals, err := harness.DecodeJSONValues(string(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if len(vals) != 1 {
		return nil, fmt.Errorf("%d JSON values, want one", len(vals))
	}
	return vals, nil
}

// readEvents reads n JSON values from a watch stream, or fewer if it ends
// or the request's deadline passes first.
func readEvents(body io.Reader, n int) ([]any, []byte, error) {
	var raw strings.Builder
	dec := json.NewDecoder(io.TeeReader(body, &raw))
	dec.UseNumber()
	var got []any
	for len(got) < n {
		var v any
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, context.DeadlineExceeded) {
				break
			}
			return got, []byte(raw.String()), err
		}
		got = append(got, v)
	}
	return got, []byte(raw.String()), nil
}

// writesCRD reports whether ex writes a CustomResourceDefinition that it
// expects to be stored.
func writesCRD(ex *kubectlExample) bool {
	return ex.WantCode == 0 && strings.Contains(ex.Stdin, "kind: CustomResourceDefinition") &&
		slices.ContainsFunc(ex.Args, func(a string) bool { return a == "apply" || a == "create" || a == "replace" })
}

// runKubectlAfterReload runs ex, which follows the write of a CRD, again
// until it gives what the page shows, for up to reloadWait: specd serves
// what a CRD declares a moment after it is written (a reload), as it
// does for a schema file (runWorkdirDoc).
func runKubectlAfterReload(t *testing.T, k *harness.Kubectl, ex *kubectlExample) error {
	deadline := time.Now().Add(reloadWait)
	for {
		err := runKubectlExample(t, k, ex)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runKubectlExample runs one kubectl command from the repository root (so
// manifests are named as in the docs) and compares its output.
func runKubectlExample(t *testing.T, k *harness.Kubectl, ex *kubectlExample) error {
	t.Helper()
	root, err := filepath.Abs(harness.RepoRoot)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(t.Context(), harness.KubectlTimeout)
	defer cancel()
	cmd := k.Command(ctx, append([]string{"--request-timeout", "20s"}, ex.Args...)...)
	cmd.Dir = root
	return runAndCompare(ctx, cmd, ex)
}

// runAndCompare runs cmd, whose context is ctx, with the example's
// standard input, and compares its exit status and output with the
// example's.
func runAndCompare(ctx context.Context, cmd *exec.Cmd, ex *kubectlExample) error {
	cmd.Stdin = strings.NewReader(ex.Stdin)
	var stdout, stderr harness.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("no answer in time\n--- stdout ---\n%s--- stderr ---\n%s", stdout.String(), stderr.String())
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return err
	}
	if code != ex.WantCode {
		return fmt.Errorf("exit %d, want %d\n--- stdout ---\n%s--- stderr ---\n%s", code, ex.WantCode, stdout.String(), stderr.String())
	}
	var problems []string
	if err := harness.MatchLines(ex.WantStdout, stdout.String()); err != nil {
		problems = append(problems, "stdout:\n"+err.Error())
	}
	if ex.CheckErr {
		if err := harness.MatchLines(ex.WantStderr, stderr.String()); err != nil {
			problems = append(problems, "stderr:\n"+err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}
