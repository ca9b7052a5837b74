package structural

import (
	"regexp"
	"testing"
)

// The byte-table fast path must agree with regexp on every input.
func TestPatternFastPath(t *testing.T) {
	patterns := map[string]bool{ // pattern -> uses the fast path
		`^[a-z0-9-]+$`:           true,
		`^[-a-zA-Z0-9_{}.]+$`:    true,
		`^[0-9]*$`:               true,
		`^a+$`:                   true,
		`^[a-z]+`:                false,
		`[a-z]+$`:                false,
		`^[a-zé]+$`:              false,
		`^(?i)[a-z]+$`:           false, // folds to the Kelvin sign
		`^[^a-z]+$`:              false,
		`^[a-z0-9]([-a-z0-9]*)$`: false,
		`^\d+$`:                  true,
		`^\w*$`:                  true,
	}
	inputs := []string{"", "a", "abc-123", "ABC", "a b", "é", "a\n", "\n", "-", "{x}.y", "0123", "_", "aé", "a$", "Zz9"}
	for src, fast := range patterns {
		p, err := compilePattern(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if (p.table != nil) != fast {
			t.Errorf("%s: fast path %v, want %v", src, p.table != nil, fast)
		}
		re := regexp.MustCompile(src)
		for _, in := range inputs {
			if got, want := p.MatchString(in), re.MatchString(in); got != want {
				t.Errorf("%s on %q: got %v, want %v", src, in, got, want)
			}
		}
	}
}
