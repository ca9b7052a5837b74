package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// AnyValue in an expected JSON body matches any value that is present.
const AnyValue = "..."

// anyToken in an expected line of kubectl output matches a run of
// non-whitespace characters: a whole token, or part of one.
const anyToken = "<any>"

// DecodeJSONValues decodes a sequence of JSON values (one, or one per
// watch event), keeping numbers exact.
func DecodeJSONValues(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var vals []any
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return vals, nil
		}
		if err != nil {
			return vals, err
		}
		vals = append(vals, v)
	}
}

// JSONSubset returns where got differs from want: every key of a wanted
// object must be in got with a matching value, arrays must have the same
// length and match element by element, "..." matches any value, and
// scalars must be equal (numbers by value).
func JSONSubset(want, got any, at string) []string {
	if at == "" {
		at = "$"
	}
	if s, ok := want.(string); ok && s == AnyValue {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %s", at, Compact(got))}
		}
		var diffs []string
		for _, k := range slices.Sorted(maps.Keys(w)) {
			wv := w[k]
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing, want %s", at, k, Compact(wv)))
				continue
			}
			diffs = append(diffs, JSONSubset(wv, gv, at+"."+k)...)
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %s", at, Compact(got))}
		}
		if len(g) != len(w) {
			return []string{fmt.Sprintf("%s: want %d elements, got %d: %s", at, len(w), len(g), Compact(got))}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, JSONSubset(w[i], g[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
		return diffs
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(w, g) {
			return nil
		}
	default:
		if want == got {
			return nil
		}
	}
	return []string{fmt.Sprintf("%s: want %s, got %s", at, Compact(want), Compact(got))}
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(string(a), 64)
	y, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && x == y
}

// Compact is v as compact JSON.
func Compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

// Pretty indents a JSON body for a failure message; other bodies are
// returned as they are.
func Pretty(body []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") == nil {
		return buf.String()
	}
	return string(body)
}

// MatchLines compares output with the expected lines: runs of whitespace
// count as one space, leading and trailing whitespace and trailing blank
// lines are ignored, and <any> matches a run of non-whitespace characters.
func MatchLines(want []string, got string) error {
	gotLines := TrimBlankTail(strings.Split(strings.TrimRight(got, "\n"), "\n"))
	if got == "" {
		gotLines = nil
	}
	var diffs []string
	for i := 0; i < max(len(want), len(gotLines)); i++ {
		var w, g string
		if i < len(want) {
			w = strings.Join(strings.Fields(want[i]), " ")
		}
		if i < len(gotLines) {
			g = strings.Join(strings.Fields(gotLines[i]), " ")
		}
		if i < len(want) && i < len(gotLines) && LineMatches(w, g) {
			continue
		}
		switch {
		case i >= len(want):
			diffs = append(diffs, fmt.Sprintf("  line %d: unexpected %q", i+1, g))
		case i >= len(gotLines):
			diffs = append(diffs, fmt.Sprintf("  line %d: missing %q", i+1, w))
		default:
			diffs = append(diffs, fmt.Sprintf("  line %d: want %q\n  %*s   got %q", i+1, w, len(strconv.Itoa(i+1)), "", g))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s\n--- want ---\n%s\n--- got ---\n%s", strings.Join(diffs, "\n"),
			strings.Join(want, "\n"), strings.Join(gotLines, "\n"))
	}
	return nil
}

// LineMatches compares two whitespace-normalized lines, <any> in want
// matching a run of non-whitespace characters.
func LineMatches(want, got string) bool {
	if !strings.Contains(want, anyToken) {
		return want == got
	}
	parts := strings.Split(want, anyToken)
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, `\S+`) + "$").MatchString(got)
}
