package aggregated

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docsPage is the page whose examples run here, against the host: the
// `console` blocks of docs/aggregation.md, in the format of TestDocs
// (docs/README.md), each command with the host admin's kubeconfig.
const docsPage = "docs/aggregation.md"

// docCommand is one `$ kubectl ...` line of a console block and what it
// must print.
type docCommand struct {
	line   int
	args   []string
	stdin  string
	exit   int
	stdout []string
	stderr []string
}

// runDocs runs the page's commands in order.
func runDocs(t *testing.T, h *host) {
	md, err := os.ReadFile(filepath.Join(repoRoot, docsPage))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := parseConsole(string(md))
	if err != nil {
		t.Fatalf("%s: %v", docsPage, err)
	}
	if len(cmds) == 0 {
		t.Fatalf("%s: no kubectl example", docsPage)
	}
	for _, c := range cmds {
		out, errOut, err := tryKubectlIn(h.admin, c.stdin, c.args...)
		code := 0
		if err != nil {
			code = exitCode(err)
		}
		if code != c.exit || !matches(c.stdout, out) || (c.exit != 0 && !matches(c.stderr, errOut)) {
			t.Errorf("%s:%d: kubectl %s\nexit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", docsPage, c.line,
				strings.Join(c.args, " "), code, c.exit, out, strings.Join(c.stdout, "\n"), errOut)
		}
	}
}

var fenceLine = regexp.MustCompile("^```(\\S*)\\s*$")

// parseConsole returns the kubectl commands of the console blocks.
func parseConsole(md string) ([]docCommand, error) {
	var cmds []docCommand
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if m[1] == "console" {
			block, err := parseBlock(lines[i+1:end], i+2)
			if err != nil {
				return nil, err
			}
			cmds = append(cmds, block...)
		}
		i = end
	}
	return cmds, nil
}

// parseBlock reads one console block whose first line is line first.
func parseBlock(lines []string, first int) ([]docCommand, error) {
	var cmds []docCommand
	var cur *docCommand
	afterExit := false
	for j := 0; j < len(lines); j++ {
		l := lines[j]
		switch {
		case strings.HasPrefix(l, "$ "):
			text := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(text, "\\") && j+1 < len(lines) {
				j++
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[j])
			}
			c, consumed, err := command(text, lines[j+1:], first+j)
			if err != nil {
				return nil, err
			}
			j += consumed
			cmds = append(cmds, c)
			cur, afterExit = &cmds[len(cmds)-1], false
		case cur == nil:
			return nil, fmt.Errorf("line %d: output before any command", first+j)
		case strings.HasPrefix(l, "# exit "):
			n, err := strconv.Atoi(strings.TrimPrefix(l, "# exit "))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", first+j, err)
			}
			cur.exit, afterExit = n, true
		case afterExit:
			cur.stderr = append(cur.stderr, l)
		default:
			cur.stdout = append(cur.stdout, l)
		}
	}
	return cmds, nil
}

// command splits a command line; a trailing <<EOF reads the following
// lines up to EOF as its standard input (consumed counts them).
func command(text string, rest []string, line int) (c docCommand, consumed int, err error) {
	c.line = line
	if before, ok := strings.CutSuffix(text, " <<EOF"); ok {
		text = before
		for consumed < len(rest) && rest[consumed] != "EOF" {
			c.stdin += rest[consumed] + "\n"
			consumed++
		}
		if consumed == len(rest) {
			return c, 0, fmt.Errorf("line %d: no EOF", line)
		}
		consumed++
	}
	words, err := splitWords(text)
	if err != nil {
		return c, 0, fmt.Errorf("line %d: %v", line, err)
	}
	if len(words) == 0 || words[0] != "kubectl" {
		return c, 0, fmt.Errorf("line %d: only kubectl runs", line)
	}
	c.args = words[1:]
	return c, consumed, nil
}

// splitWords splits as a shell would, with '...' and "..." quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// matches compares output with the expected lines as TestDocs does:
// runs of spaces count as one, leading and trailing spaces and trailing
// blank lines do not count, and <any> matches a run of non-space
// characters.
func matches(want []string, got string) bool {
	g := trimLines(strings.Split(got, "\n"))
	w := trimLines(want)
	if len(g) != len(w) {
		return false
	}
	for i := range w {
		if !lineRegexp(w[i]).MatchString(g[i]) {
			return false
		}
	}
	return true
}

func trimLines(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func lineRegexp(want string) *regexp.Regexp {
	parts := strings.Split(want, "<any>")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, `\S+`) + "$")
}
