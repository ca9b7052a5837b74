package fieldmanager

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/schemas"
)

// BenchmarkTrackCreatePayload is what tracking a create costs for the
// object of `specd bench` (examples/bench, 20 string fields of 70 bytes),
// the fast path against the general one.
func BenchmarkTrackCreatePayload(b *testing.B) {
	reg, err := schemas.Load(filepath.Join("..", "..", "examples", "bench"))
	if err != nil {
		b.Fatal(err)
	}
	rv := reg.Lookup("bench.specd.io", "v1", "payloads")
	m, err := New(rv.OpenAPI, rv.APIVersion(), rv.StatusSubresource)
	if err != nil {
		b.Fatal(err)
	}
	spec := map[string]any{}
	for i := range 20 {
		spec[fmt.Sprintf("f%02d", i)] = strings.Repeat("x", 70)
	}
	obj := map[string]any{"apiVersion": "bench.specd.io/v1", "kind": "Payload",
		"metadata": map[string]any{"name": "p", "namespace": "bench", "uid": "u", "generation": int64(1)}, "spec": spec}
	now := time.Now()
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := m.Update(nil, obj, nil, Write{Manager: "m", Now: now}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mf := newManaged()
			if err := m.update(nil, obj, mf, Write{Manager: "m", Now: now}); err != nil {
				b.Fatal(err)
			}
			if _, err := mf.encode(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
