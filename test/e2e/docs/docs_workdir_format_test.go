package docs

import (
	"slices"
	"strings"
	"testing"
)

// TestWorkdirFormat checks the parsing behind workdir pages without a
// server.
func TestWorkdirFormat(t *testing.T) {
	md := strings.Join([]string{
		"```yaml",                   // 1
		"# schemas/a.yaml",          // 2
		"openapi: 3.0.3",            // 3
		"```",                       // 4
		"```yaml",                   // 5
		"not: a file",               // 6
		"```",                       // 7
		"```console",                // 8
		"$ specd serve --schemas s", // 9
		"time=<any> msg=serving",    // 10
		"$ export KUBECONFIG=data/admin.kubeconfig", // 11
		"$ go -C p build .",                         // 12
		"```",                                       // 13
	}, "\n")
	steps, err := parseWorkdir(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 4 {
		t.Fatalf("%d steps, want 4: %+v", len(steps), steps)
	}
	if steps[0].File != "schemas/a.yaml" || steps[0].Content != "# schemas/a.yaml\nopenapi: 3.0.3\n" || steps[0].Line != 1 {
		t.Errorf("file step: %+v", steps[0])
	}
	if c := steps[1].Cmd; c.Program != "specd" || !slices.Equal(c.WantStdout, []string{"time=<any> msg=serving"}) {
		t.Errorf("serve step: %+v", c)
	}
	if c := steps[3].Cmd; c.Program != "go" || !slices.Equal(c.Args, []string{"-C", "p", "build", "."}) {
		t.Errorf("go step: %+v", c)
	}
	if _, err := parseWorkdir("```console\n$ rm -rf data\n```\n"); err == nil {
		t.Error("a command other than specd, kubectl, go and export was accepted")
	}

	for in, want := range map[string]string{
		"serve --schemas s":                         "serve --schemas s --listen 127.0.0.1:0",
		"serve --listen 127.0.0.1:8080 --schemas s": "serve --schemas s --listen 127.0.0.1:0",
		"serve --listen=0.0.0.0:8443 --data-dir d":  "serve --data-dir d --listen 127.0.0.1:0",
	} {
		if got := strings.Join(withLoopbackPort(strings.Fields(in)), " "); got != want {
			t.Errorf("withLoopbackPort(%s) = %s, want %s", in, got, want)
		}
	}
	if got := flagValue([]string{"--data-dir=x"}, "--data-dir", "data"); got != "x" {
		t.Errorf("flagValue: %q", got)
	}

	log := "time=1 level=INFO msg=a\ntime=2 level=INFO msg=serving address=https://127.0.0.1:4\n"
	if err := logged([]string{"time=<any> level=INFO msg=serving address=https://127.0.0.1:<any>"}, log); err != nil {
		t.Error(err)
	}
	if err := logged([]string{"time=<any> level=INFO msg=serving address=<any>", "time=<any> level=INFO msg=a"}, log); err == nil {
		t.Error("lines logged in another order matched")
	}
}
