package clients

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// clientsDoc is the page whose examples TestClients runs.
var clientsDoc = filepath.Join(harness.RepoRoot, "docs", "clients.md")

// clientsModule pins the generators (test/clients: go.mod, ts/package.json).
var clientsModule = filepath.Join(harness.RepoRoot, "test", "clients")

// clientToolTimeout bounds one go or npm command: a cold module or npm
// cache downloads.
const clientToolTimeout = 10 * time.Minute

// TestClients runs docs/clients.md: a Go client generated with oapi-codegen
// from the served OpenAPI v3 document creates, reads, lists and deletes a
// widget on a real specd over TLS, and TypeScript types generated with
// openapi-typescript type-check the page's module. Nothing generated is
// kept: it all happens in temporary directories.
func TestClients(t *testing.T) {
	t.Parallel()
	page := clientsPage(t)
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	doc := testhttp.Do(t, s.Client, testhttp.Request{URL: s.URL + "/openapi/v3/apis/shop.example.com/v1"})
	if doc.Code != 200 {
		t.Fatalf("GET the document: HTTP %d", doc.Code)
	}
	t.Run("go", func(t *testing.T) {
		testGoClient(t, s, page, doc.Body)
	})
	t.Run("typescript", func(t *testing.T) {
		testTypeScript(t, page, doc.Body)
	})
}

// docPage is what TestClients takes from docs/clients.md: the blocks whose
// first line names a file (`// main.go`, `# oapi-codegen.yaml`), and the
// text block after `go run .`, which is what the program prints.
type docPage struct {
	files  map[string]string
	output []string
}

var fileComment = regexp.MustCompile(`^(?://|#) ([\w.-]+\.(?:go|ts|yaml))$`)

func clientsPage(t *testing.T) docPage {
	t.Helper()
	md, err := os.ReadFile(clientsDoc)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := harness.Fences(string(md))
	if err != nil {
		t.Fatalf("docs/clients.md: %v", err)
	}
	p := docPage{files: map[string]string{}}
	for i, b := range blocks {
		if len(b.Lines) == 0 {
			continue
		}
		if m := fileComment.FindStringSubmatch(b.Lines[0]); m != nil {
			p.files[m[1]] = strings.Join(b.Lines, "\n") + "\n"
		}
		if b.Info == "sh" && strings.Join(b.Lines, "\n") == "go run ." && i+1 < len(blocks) && blocks[i+1].Info == "text" {
			p.output = blocks[i+1].Lines
		}
	}
	for _, f := range []string{"main.go", "oapi-codegen.yaml", "widgets.ts"} {
		if p.files[f] == "" {
			t.Fatalf("docs/clients.md has no block starting with the file name %s", f)
		}
	}
	if len(p.output) == 0 {
		t.Fatal("docs/clients.md has no text block after `go run .`")
	}
	return p
}

// testGoClient generates the Go client in a module pinned as test/clients
// is, builds the page's program and runs it against s, over TLS as the admin
// whose certificate specd generated into its data directory.
func testGoClient(t *testing.T, s *harness.Specd, page docPage, document string) {
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(clientsModule, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module example.com/widgets"))
	harness.WriteFile(t, dir, "go.mod", string(mod))
	copyFile(t, filepath.Join(clientsModule, "go.sum"), filepath.Join(dir, "go.sum"))
	harness.WriteFile(t, dir, "shop.json", document)
	harness.WriteFile(t, dir, "oapi-codegen.yaml", page.files["oapi-codegen.yaml"])
	harness.WriteFile(t, dir, "main.go", page.files["main.go"])

	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "SPECD_SERVER="+s.URL, "SPECD_DATA="+s.DataDir)
	run(t, dir, env, "go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "shop.json")
	if _, err := os.Stat(filepath.Join(dir, "shop", "shop.gen.go")); err != nil {
		t.Fatalf("no generated client: %v", err)
	}
	out := run(t, dir, env, "go", "run", ".")
	if err := harness.MatchLines(page.output, out); err != nil {
		t.Errorf("the program's output is not the page's: %v\n%s", err, out)
	}
}

// testTypeScript installs the pinned TypeScript tools, generates the types
// and type-checks the page's module, then a module that breaks the schema.
func testTypeScript(t *testing.T, page docPage, document string) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is not installed: the TypeScript client test needs node and npm on the PATH")
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "tsconfig.json"} {
		copyFile(t, filepath.Join(clientsModule, "ts", f), filepath.Join(dir, f))
	}
	harness.WriteFile(t, dir, "shop.json", document)
	harness.WriteFile(t, dir, "widgets.ts", page.files["widgets.ts"])
	env := append(os.Environ(), "NO_COLOR=1", "npm_config_update_notifier=false")
	run(t, dir, env, "npm", "ci", "--no-audit", "--no-fund")
	run(t, dir, env, "npx", "--no-install", "openapi-typescript", "shop.json", "-o", "shop.ts", "--default-non-nullable=false")
	run(t, dir, env, "npx", "--no-install", "tsc", "--noEmit", "-p", ".")

	// The types are the schema's: a color it does not allow is an error.
	harness.WriteFile(t, dir, "broken.ts", `import createClient from "openapi-fetch";
import type { paths } from "./shop";

const client = createClient<paths>({ baseUrl: "https://127.0.0.1:8080" });
await client.POST("/apis/shop.example.com/v1/namespaces/{namespace}/widgets", {
  params: { path: { namespace: "default" } },
  body: { apiVersion: "shop.example.com/v1", kind: "Widget", spec: { color: "purple" } },
});
`)
	out, err := command(t, dir, env, "npx", "--no-install", "tsc", "--noEmit", "-p", ".")
	if err == nil || !strings.Contains(out, `"purple"`) {
		t.Errorf("tsc accepts a color the schema does not allow (%v):\n%s", err, out)
	}
}

// run runs a command in dir and returns its output, failing the test if
// it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := command(t, dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func command(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientToolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
