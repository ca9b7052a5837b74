package cliflag

import (
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
