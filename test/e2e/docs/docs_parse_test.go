package docs

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/specd-io/specd/test/e2e/harness"
)

// The runnable examples of docs/*.md, parsed into steps. docs/README.md
// describes the format for contributors; this file is its definition.

// docStep is one runnable example: an HTTP exchange or a kubectl command.
type docStep struct {
	Line    int // 1-based line of the opening fence (of the command, for kubectl)
	HTTP    *httpExample
	Kubectl *kubectlExample
}

// httpExample is an `http` block and the `http-response` block after it.
type httpExample struct {
	Method, Target string // "POST", "/apis/...?dryRun=All"
	Header         http.Header
	Body           string
	Code           int         // the expected status code
	WantHeader     http.Header // headers that must be present with these values
	WantBody       string      // JSON (one value per event for a watch); empty: not checked
	RespLine       int         // line of the http-response fence
}

// kubectlExample is one `$ kubectl ...` line of a console block and what
// follows it.
type kubectlExample struct {
	Command    string   // the command line as written, without "$ "
	Program    string   // "kubectl" (or, on a workdir page, "specd", "go", "export")
	Args       []string // the arguments after the program
	Stdin      string   // the here-document, if the command ends in <<WORD
	WantStdout []string
	WantCode   int      // 0 unless a "# exit N" line says otherwise
	WantStderr []string // compared only when a "# exit N" line is given
	CheckErr   bool     // a "# exit N" line was given
}

var (
	exitLine = regexp.MustCompile(`^# exit (\d+)$`)
	heredoc  = regexp.MustCompile(`\s<<-?\s*'?"?([A-Za-z_][A-Za-z0-9_]*)'?"?$`)
)

// docSchemasLine is how a page asks TestDocs to serve more schema
// directories beside examples/schemas, repository-relative:
//
//	<!-- docs-test: schemas examples/scale -->
var docSchemasLine = regexp.MustCompile(`(?m)^<!-- docs-test: schemas ([^>]*) -->$`)

// docSecureLine is how a page asks TestDocs to run its examples against
// specd serving HTTPS with the certificates it generates: kubectl with the
// admin kubeconfig, http blocks with the admin's client certificate.
var docSecureLine = regexp.MustCompile(`(?m)^<!-- docs-test: secure -->$`)

func docSecure(md string) bool { return docSecureLine.MatchString(md) }

// docAggregatedLine marks a page whose examples need a Kubernetes host
// cluster (docs/aggregation.md): test/aggregated runs them, not TestDocs.
//
//	<!-- docs-test: aggregated -->
var docAggregatedLine = regexp.MustCompile(`(?m)^<!-- docs-test: aggregated -->$`)

func docAggregated(md string) bool { return docAggregatedLine.MatchString(md) }

// docSchemas returns the schema directories a page asks to be served
// beside examples/schemas.
func docSchemas(md string) []string {
	var dirs []string
	for _, m := range docSchemasLine.FindAllStringSubmatch(md, -1) {
		dirs = append(dirs, strings.Fields(m[1])...)
	}
	return dirs
}

// parseDoc returns the runnable steps of a Markdown file, in order. Blocks
// with other info strings are illustrations and are left alone.
func parseDoc(md string) ([]docStep, error) {
	fs, err := harness.Fences(md)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(md, "\n")
	var steps []docStep
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		switch f.Info {
		case "http":
			if i+1 >= len(fs) || fs[i+1].Info != "http-response" || !onlyBlank(lines[f.End:fs[i+1].Line-1]) {
				return nil, fmt.Errorf("line %d: an http block must be followed at once by an http-response block", f.Line)
			}
			ex, err := parseHTTP(f, fs[i+1])
			if err != nil {
				return nil, err
			}
			steps = append(steps, docStep{Line: f.Line, HTTP: ex})
			i++
		case "http-response":
			return nil, fmt.Errorf("line %d: an http-response block without an http block just before it", f.Line)
		case "console":
			ks, err := parseConsole(f, "kubectl")
			if err != nil {
				return nil, err
			}
			steps = append(steps, ks...)
		}
	}
	return steps, nil
}

func onlyBlank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// headerBlock parses a first line, header lines and, after a blank line, a
// body.
func headerBlock(f harness.Fence) (first string, h http.Header, body string, err error) {
	if len(f.Lines) == 0 || strings.TrimSpace(f.Lines[0]) == "" {
		return "", nil, "", fmt.Errorf("line %d: the %s block is empty", f.Line, f.Info)
	}
	first = strings.TrimSpace(f.Lines[0])
	h = http.Header{}
	i := 1
	for ; i < len(f.Lines) && strings.TrimSpace(f.Lines[i]) != ""; i++ {
		name, value, ok := strings.Cut(f.Lines[i], ":")
		if !ok || strings.ContainsAny(strings.TrimSpace(name), " \t") {
			return "", nil, "", fmt.Errorf("line %d: %q is not a header line (Name: value); put a blank line before the body",
				f.Line+1+i, f.Lines[i])
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if i < len(f.Lines) {
		body = strings.TrimSpace(strings.Join(f.Lines[i+1:], "\n"))
	}
	return first, h, body, nil
}

func parseHTTP(req, resp harness.Fence) (*httpExample, error) {
	first, h, body, err := headerBlock(req)
	if err != nil {
		return nil, err
	}
	method, target, ok := strings.Cut(first, " ")
	target = strings.TrimSpace(target)
	if !ok || method != strings.ToUpper(method) || !strings.HasPrefix(target, "/") || strings.Contains(target, " ") {
		return nil, fmt.Errorf("line %d: %q: the first line of an http block is METHOD /path?query", req.Line+1, first)
	}
	ex := &httpExample{Method: method, Target: target, Header: h, Body: body, RespLine: resp.Line}
	first, ex.WantHeader, ex.WantBody, err = headerBlock(resp)
	if err != nil {
		return nil, err
	}
	code, ok := strings.CutPrefix(first, "HTTP ")
	if ex.Code, err = strconv.Atoi(strings.TrimSpace(code)); !ok || err != nil || ex.Code < 100 || ex.Code > 599 {
		return nil, fmt.Errorf("line %d: %q: the first line of an http-response block is HTTP <code>", resp.Line+1, first)
	}
	return ex, nil
}

// parseConsole returns a step per "$ " line of a console block, whose
// commands must be of programs.
func parseConsole(f harness.Fence, programs ...string) ([]docStep, error) {
	var steps []docStep
	var cur *kubectlExample
	for i := 0; i < len(f.Lines); i++ {
		l, line := f.Lines[i], f.Line+1+i
		cmd, isCmd := strings.CutPrefix(l, "$ ")
		if !isCmd {
			switch m := exitLine.FindStringSubmatch(strings.TrimSpace(l)); {
			case cur == nil && strings.TrimSpace(l) == "":
			case cur == nil:
				return nil, fmt.Errorf("line %d: %q: a console block starts with a \"$ %s ...\" line", line, l, programs[0])
			case m != nil && !cur.CheckErr:
				cur.CheckErr = true
				cur.WantCode, _ = strconv.Atoi(m[1])
			case cur.CheckErr:
				cur.WantStderr = append(cur.WantStderr, l)
			default:
				cur.WantStdout = append(cur.WantStdout, l)
			}
			continue
		}
		// A trailing backslash continues the command on the next line.
		for strings.HasSuffix(cmd, `\`) && i+1 < len(f.Lines) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(f.Lines[i])
		}
		cur = &kubectlExample{Command: strings.TrimSpace(cmd)}
		if m := heredoc.FindStringSubmatchIndex(cur.Command); m != nil {
			word := cur.Command[m[2]:m[3]]
			cur.Command = strings.TrimSpace(cur.Command[:m[0]])
			var doc []string
			for i++; i < len(f.Lines) && strings.TrimSpace(f.Lines[i]) != word; i++ {
				doc = append(doc, f.Lines[i])
			}
			if i == len(f.Lines) {
				return nil, fmt.Errorf("line %d: the here-document is not ended by a line %q", line, word)
			}
			cur.Stdin = strings.Join(doc, "\n") + "\n"
		}
		words, err := shellWords(cur.Command)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if len(words) == 0 || !slices.Contains(programs, words[0]) {
			return nil, fmt.Errorf("line %d: %q: only %s commands are run", line, cur.Command, strings.Join(programs, ", "))
		}
		cur.Program, cur.Args = words[0], words[1:]
		steps = append(steps, docStep{Line: line, Kubectl: cur})
	}
	for _, s := range steps {
		s.Kubectl.WantStdout = harness.TrimBlankTail(s.Kubectl.WantStdout)
		s.Kubectl.WantStderr = harness.TrimBlankTail(s.Kubectl.WantStderr)
	}
	return steps, nil
}

// shellWords splits a command line as a POSIX shell would for the quoting
// docs use: 'single quotes', "double quotes" with \" \\ \$ escapes, and
// backslash escapes outside quotes. Variables and operators are refused,
// and globs are taken literally.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>()`$", c) >= 0:
			return nil, fmt.Errorf("%q: shell syntax (%c) is not interpreted; quote it", s, c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
