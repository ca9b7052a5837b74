package gc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/specd-io/specd/engine"
)

// BenchmarkPass is one collector pass with nothing to do over 10,000
// objects of about 1.7 KB (5,000 widgets each owning a book): the full
// read of every resource at one revision and the decisions.
func BenchmarkPass(b *testing.B) {
	w := newWorld(b)
	ctx := context.Background()
	pad := strings.Repeat("x", 1500)
	for i := range 5000 {
		res, err := w.store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: w.widgets, Namespace: "ns"}, Body: []byte(fmt.Sprintf(
			`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w%d"},"spec":{"pad":%q}}`, i, pad)), Options: engine.WriteOptions{}})

		if err != nil {
			b.Fatal(err)
		}
		uid := strings.Split(strings.Split(string(res.Object), `"uid":"`)[1], `"`)[0]
		_, err = w.store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: w.books, Namespace: "ns"}, Body: []byte(fmt.Sprintf(
			`{"apiVersion":"library.example.com/v1","kind":"Book","metadata":{"name":"b%d","ownerReferences":[{"apiVersion":"shop.example.com/v1","kind":"Widget","name":"w%d","uid":%q}]},"spec":{"pad":%q}}`,
			i, i, uid, pad)), Options: engine.WriteOptions{}})

		if err != nil {
			b.Fatal(err)
		}
	}
	c := w.collector()
	b.ResetTimer()
	for b.Loop() {
		n, err := c.Pass(ctx)
		if err != nil || n != 0 {
			b.Fatalf("pass: %d writes, %v", n, err)
		}
	}
}
