package schemas

import (
	"bytes"
	"regexp"
	"testing"
)

// separatorRE is the multi-line regexp docSeparators replaced: the
// reference they must agree with.
var separatorRE = regexp.MustCompile(`(?m)^---([ \t].*)?\r?$`)

func FuzzDocSeparators(f *testing.F) {
	for _, seed := range []string{
		"a: 1\n---\nb: 2\n", "---\na: 1\n--- # two\nb: 2", "--- !tag\r\nx\r\n---\r\n", "----\n---x\n ---\n", "---", "\n---\n\n---\t\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		locs := separatorRE.FindAllIndex(data, -1)
		got := docSeparators(data)
		if len(got) != len(locs) {
			t.Fatalf("%q: %d separators, the regexp finds %d", data, len(got), len(locs))
		}
		for i, loc := range locs {
			want := separator{start: loc[0], end: loc[1], line: bytes.Count(data[:loc[0]], []byte("\n")) + 1}
			if got[i] != want {
				t.Fatalf("%q: separator %d is %+v, want %+v", data, i, got[i], want)
			}
		}
	})
}

// openAPIKeyRE is the regexp hasOpenAPIKey replaced.
var openAPIKeyRE = regexp.MustCompile(`(?m)^(openapi|"openapi"|'openapi')[ \t]*:`)

// FuzzOpenAPIKey checks hasOpenAPIKey's line scan against the regexp it
// replaced.
func FuzzOpenAPIKey(f *testing.F) {
	for _, seed := range []string{
		"openapi: 3.0.0\n", "a: 1\n\"openapi\" :x", "x\n'openapi'\t\t:", " openapi: 3", "openapi\n:", "openapis: 1", "kind: X\nopenapi:",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := hasOpenAPIKey(data), openAPIKeyRE.Match(data); got != want {
			t.Fatalf("%q: hasOpenAPIKey %v, the regexp %v", data, got, want)
		}
	})
}
