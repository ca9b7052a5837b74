package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestUsageErrors: a bad flag is answered in one line on stderr that
// names it, and -h prints the flags on stdout.
func TestUsageErrors(t *testing.T) {
	for _, command := range []string{"serve", "check"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{command, "--no-such-flag"}, &stdout, &stderr)
		if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "-no-such-flag") {
			t.Errorf("specd %s --no-such-flag: exit %d, stderr %q; want exit 2 and one line naming the flag", command, code, stderr.String())
		}
		stdout.Reset()
		stderr.Reset()
		if code := run(t.Context(), []string{command, "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "-schemas") || stderr.Len() != 0 {
			t.Errorf("specd %s -h: exit %d, stdout %d bytes, stderr %q; want the flags on stdout", command, code, stdout.Len(), stderr.String())
		}
	}
}
