package etcdstorage_test

import (
	"log/slog"
	"os"
	"testing"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// BenchmarkStartEmbedded starts the embedded etcd as specd serve does (not
// Fast: with fsync and specd's raft ticks) in a new data directory, until
// it is ready, and closes it; the close is not timed.
//
//	go test ./engine/etcdstorage/ -run '^$' -bench BenchmarkStartEmbedded -benchtime 10x
func BenchmarkStartEmbedded(b *testing.B) {
	for b.Loop() {
		// Not b.TempDir(): the socket path must stay under 108 bytes.
		dir, err := os.MkdirTemp("", "etcd-start-")
		if err != nil {
			b.Fatal(err)
		}
		e, err := etcdstorage.StartEmbedded(b.Context(), etcdstorage.EmbeddedConfig{DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = e.Close()
		_ = os.RemoveAll(dir)
		b.StartTimer()
	}
}
