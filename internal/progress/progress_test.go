package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProgressBarOnlyOnTerminals(t *testing.T) {
	var b strings.Builder
	if New(&b, "fuzz") != nil {
		t.Error("a bar on a strings.Builder")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if New(f, "fuzz") != nil {
		t.Error("a bar on a regular file")
	}
}

func TestProgressBarDraws(t *testing.T) {
	var b strings.Builder
	bar := &Bar{w: &b, label: "fuzz"}
	bar.Update(1, 4)
	bar.Update(4, 4)
	bar.Done()
	want := "\rfuzz [=======                       ] 1/4" +
		"\rfuzz [==============================] 4/4" +
		"\r" + strings.Repeat(" ", len("fuzz")+barWidth+24) + "\r"
	if got := b.String(); got != want {
		t.Errorf("drew %q, want %q", got, want)
	}
}
