package plugins

import (
	"context"
	"testing"
)

// BenchmarkValidate is one Validate call to a running plugin over gRPC:
// the cost a validating hook adds to a write, less the engine's own work.
func BenchmarkValidate(b *testing.B) {
	h, _ := newHost(b, pluginDir(b, map[string]string{"widgets": "testplugin"}), nil)
	ctx := context.Background()
	req := admission("UPDATE", `{"color":"red","serial":"a","size":3}`, `{"color":"blue","serial":"a","size":2}`)
	if _, err := h.Validate(ctx, "widgets", req); err != nil { // start it
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		errs, err := h.Validate(ctx, "widgets", req)
		if err != nil || len(errs) != 0 {
			b.Fatalf("errs %v, err %v", errs, err)
		}
	}
}
