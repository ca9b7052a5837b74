package cliflag

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestList(t *testing.T) {
	var l List
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Var(&l, "name", "")
	if err := fs.Parse([]string{"--name", "a, b,,", "--name=c", "--name", " "}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(l, want) {
		t.Errorf("got %q, want %q", l, want)
	}
	if got := l.String(); got != "a,b,c" {
		t.Errorf("String: %q", got)
	}
}

// TestLevel: the level is shown as it is typed, and parsed in either
// case.
func TestLevel(t *testing.T) {
	var l Level
	if got := l.String(); got != "info" {
		t.Errorf("the zero level shows as %q, want info", got)
	}
	for in, want := range map[string]slog.Level{"debug": slog.LevelDebug, "WARN": slog.LevelWarn, "error": slog.LevelError} {
		if err := l.Set(in); err != nil || slog.Level(l) != want {
			t.Errorf("Set(%q): %v, %v; want %v", in, slog.Level(l), err, want)
		}
	}
	if err := l.Set("loud"); err == nil {
		t.Error(`Set("loud") took it`)
	}
}
