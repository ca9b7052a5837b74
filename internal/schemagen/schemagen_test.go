package schemagen_test

import (
	"testing"

	"github.com/specd-io/specd/internal/schemagen"
	"github.com/specd-io/specd/schemas"
)

func TestWriteLoads(t *testing.T) {
	dir := t.TempDir()
	o := schemagen.Options{Groups: 3, KindsPerGroup: 4}
	paths, err := schemagen.Write(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("%d files, want 3", len(paths))
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range reg.Groups() {
		n += len(g.Resources)
	}
	if n != 12 {
		t.Errorf("%d resources, want 12", n)
	}
	if reg.Lookup(schemagen.Group(2), "v1", "kind03s") == nil {
		t.Error("kind03s of the third group is not served")
	}
}
