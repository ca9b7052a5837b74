package engine_test

import (
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

func ptr[T any](v T) *T { return &v }

func setRV(tb testing.TB, body, rv string) string {
	tb.Helper()
	out, err := sjson.Set(body, "metadata.resourceVersion", rv)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// withoutVolatile drops paths (gjson syntax) from a JSON object, and what
// withoutServerFields drops.
func withoutVolatile(tb testing.TB, obj []byte, paths ...string) []byte {
	tb.Helper()
	for _, p := range paths {
		var err error
		if obj, err = sjson.DeleteBytes(obj, p); err != nil {
			tb.Fatal(err)
		}
	}
	return withoutServerFields(tb, obj)
}

func names(list []byte) string {
	var out []string
	for _, n := range gjson.GetBytes(list, "items.#.metadata.name").Array() {
		out = append(out, n.String())
	}
	return fmt.Sprint(out)
}

func mustSelector(tb testing.TB, rv *schemas.ResourceVersion, labels, fields string) engine.Selector {
	tb.Helper()
	s, err := engine.ParseSelector(rv, labels, fields)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
