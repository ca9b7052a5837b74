package memstorage_test

import (
	"context"
	"testing"

	"github.com/specd-io/specd/engine/memstorage"
)

// BenchmarkUpdateFullWindow is an update once the window of past writes
// is full, as it is after DefaultWindow writes of status.specd.io: what
// it costs should not grow with the window.
//
//	go test ./engine/memstorage/ -run '^$' -bench BenchmarkUpdateFullWindow -benchmem
func BenchmarkUpdateFullWindow(b *testing.B) {
	ctx := context.Background()
	s := memstorage.New(0)
	rev, err := s.Create(ctx, "/b/x", []byte(`{"a":1}`))
	if err != nil {
		b.Fatal(err)
	}
	for range memstorage.DefaultWindow {
		if rev, err = s.Update(ctx, "/b/x", []byte(`{"a":2}`), rev); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if rev, err = s.Update(ctx, "/b/x", []byte(`{"a":3}`), rev); err != nil {
			b.Fatal(err)
		}
	}
}
