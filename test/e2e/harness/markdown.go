package harness

import (
	"fmt"
	"regexp"
	"strings"
)

// Fence is one fenced code block of a Markdown file.
type Fence struct {
	Line  int    // line of the opening fence
	End   int    // line of the closing fence
	Info  string // the first word of the info string
	Lines []string
}

var fenceOpen = regexp.MustCompile("^( {0,3})(```+|~~~+)\\s*([^\\s`]*)")

// Fences splits Markdown into its fenced code blocks.
func Fences(md string) ([]Fence, error) {
	lines := strings.Split(md, "\n")
	var out []Fence
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, marker := m[1], m[2]
		f := Fence{Line: i + 1, Info: m[3]}
		closed := false
		for i++; i < len(lines); i++ {
			l := lines[i]
			if t := strings.TrimLeft(l, " "); len(l)-len(t) <= 3 && strings.HasPrefix(t, marker) &&
				strings.TrimSpace(strings.TrimLeft(t, marker[:1])) == "" {
				closed = true
				break
			}
			f.Lines = append(f.Lines, strings.TrimPrefix(l, indent))
		}
		if !closed {
			return nil, fmt.Errorf("line %d: the %s block is never closed", f.Line, marker)
		}
		f.End = i + 1
		out = append(out, f)
	}
	return out, nil
}

// TrimBlankTail is lines without its trailing blank lines.
func TrimBlankTail(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
