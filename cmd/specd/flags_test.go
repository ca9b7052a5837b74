package main

import (
	"bytes"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/specd-io/specd/internal/cliflag"
	"github.com/specd-io/specd/internal/golden"
)

// parseServeFlags parses args as specd serve does, without serving.
func parseServeFlags(args []string) (serveConfig, error) {
	var cfg serveConfig
	fs := pflag.NewFlagSet("specd serve", pflag.ContinueOnError)
	for _, set := range serveFlags(&cfg).FlagSets {
		fs.AddFlagSet(set)
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if err := cliflag.NoArgs(nil, fs.Args()); err != nil {
		return cfg, err
	}
	return cfg, cfg.complete()
}

// TestUsageErrors: a bad flag is answered in one line on stderr that
// names it, and -h prints the flags on stdout.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--no-such-flag"}, {"check", "--no-such-flag"}, {"snapshot", "save", "--no-such-flag"},
		{"apiservices", "--no-such-flag"}, {"bench", "--no-such-flag"}, {"version", "--no-such-flag"}, {"--no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, &stdout, &stderr)
		if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "unknown flag: --no-such-flag") {
			t.Errorf("specd %s: exit %d, stderr %q; want exit 2 and one line naming the flag", strings.Join(args, " "), code, stderr.String())
		}
	}
	for _, command := range []string{"serve", "check"} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{command, "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "--schemas") || stderr.Len() != 0 {
			t.Errorf("specd %s -h: exit %d, stdout %d bytes, stderr %q; want the flags on stdout", command, code, stdout.Len(), stderr.String())
		}
	}
}

// TestCommandLines: what specd answers to command lines that are not a
// command's run: single-dash flags, which Go's flag package took, unknown
// commands, and a group of commands without one.
func TestCommandLines(t *testing.T) {
	for name, tc := range map[string]struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		"single-dash long flag": {[]string{"serve", "-schemas", "s"}, 2, "",
			"specd serve: unknown shorthand flag: 's' in -schemas; did you mean --schemas? (specd serve -h lists the flags)\n"},
		"unknown command":  {[]string{"serv"}, 2, "", "specd: unknown command \"serv\"; did you mean serve? (specd -h lists the commands)\n"},
		"snapshot alone":   {[]string{"snapshot"}, 0, "restore", ""},
		"unknown snapshot": {[]string{"snapshot", "take"}, 2, "", "specd snapshot: unknown command \"take\"; did you mean save? (specd snapshot -h lists the commands)\n"},
		"completion":       {[]string{"completion", "bash"}, 0, "__start_specd", ""},
		"zsh completion":   {[]string{"completion", "zsh"}, 0, "#compdef specd", ""},
		"fish completion":  {[]string{"completion", "fish"}, 0, "complete -c specd", ""},
		"--version":        {[]string{"--version"}, 0, build().Resolved().Version + "\n", ""},
		"version --short":  {[]string{"version", "--short"}, 0, build().Resolved().Version + "\n", ""},
		"version":          {[]string{"version"}, 0, "Kubernetes version: v1.", ""},
		"version -o xml":   {[]string{"version", "-o", "xml"}, 2, "", "specd version: --output \"xml\": want json or yaml\n"},
		"version argument": {[]string{"version", "extra"}, 2, "", "specd version: unexpected arguments: extra\n"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(t.Context(), tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || stderr.String() != tc.stderr {
				t.Errorf("exit %d, stdout:\n%s\nstderr %q\nwant exit %d, stdout with %q, stderr %q", code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// varying are the parts of an output that change with the build: the
// Go release, the platform, and the commit and date when the go command
// stamped them.
var varying = strings.NewReplacer(runtime.Version(), "GOVERSION", runtime.GOOS+"/"+runtime.GOARCH, "OS/ARCH")

var stamped = regexp.MustCompile(`"(gitCommit|gitTreeState|buildDate)": "[^"]*"`)

// TestCLIGolden runs the command line of each testdata/cli/*.txtar (args)
// and compares what it prints on stdout with the archive's stdout; `go
// test ./cmd/specd -run TestCLIGolden -update` writes it again.
func TestCLIGolden(t *testing.T) {
	golden.Run(t, "testdata/cli/*.txtar", "stdout", func(t *testing.T, a *golden.Archive) string {
		args, _ := a.File("args")
		var stdout, stderr strings.Builder
		if code := run(t.Context(), strings.Fields(args), &stdout, &stderr); code != 0 || stderr.Len() > 0 {
			t.Fatalf("specd %s: exit %d\n%s", args, code, stderr.String())
		}
		return stamped.ReplaceAllString(varying.Replace(stdout.String()), `"$1": "STAMP"`)
	})
}

// TestCompletion: shell completion offers the values of flags that take
// one of a few, and a command's flags.
func TestCompletion(t *testing.T) {
	for args, want := range map[string]string{
		"serve --log-level ":          "debug\ninfo\nwarn\nerror\n",
		"serve --authorization-mode ": "RBAC\nAlwaysAllow\n",
		"check --output ":             "text\njson\n",
		"version -o ":                 "json\nyaml\n",
		"snapshot ":                   "restore\tRestore a snapshot",
		"serve --tls-":                "--tls-sans\tmore DNS names",
	} {
		var stdout, stderr strings.Builder
		// An empty last word asks for what comes after the flag.
		words := append([]string{"__complete"}, strings.Split(args, " ")...)
		if code := run(t.Context(), words, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) {
			t.Errorf("specd %s<TAB>: exit %d, offered:\n%s\nwant %q", args, code, stdout.String(), want)
		}
	}
}
