package converters

import (
	"strings"
	"testing"
)

func TestFrobber(t *testing.T) {
	_, r := frobber(t)
	v1 := obj("v1", `,"spec":{"height":10,"width":20,"param":"a","mode":"fast","command":"run --fast now","legacy":false},"status":{"phase":"Ready"}`)
	v2 := obj("v2", `,"spec":{"heightInInches":10,"widthInInches":20,"params":["a"],"mode":"Fast","args":["run","--fast","now"],"unit":"inches"},"status":{"phase":"Ready"}`)
	got, err := r.ToHub([]byte(v1), testGroup+"/v2")
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "v1 -> v2", string(got), v2)
	back, err := r.FromHub(got, testGroup+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "v2 -> v1", string(back), v1)
	if strings.Contains(string(got)+string(back), Annotation) {
		t.Errorf("bookkeeping where none is needed:\n%s\n%s", got, back)
	}
}
