package etcdstorage_test

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
)

// startWithLimit starts an embedded etcd sized for values of maxValue
// bytes (etcd's default when 0) and returns a Storage on it.
func startWithLimit(t *testing.T, maxValue int64) *etcdstorage.Storage {
	t.Helper()
	ctx := t.Context()
	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: t.TempDir(), Fast: true,
		Logger: slog.New(slog.DiscardHandler), MaxValueBytes: maxValue})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	cli, err := etcdstorage.NewClientWithLogger(ctx, e.Endpoints(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return etcdstorage.New(cli)
}

// TestEmbeddedFitsMaxValue: the embedded etcd takes a value of
// MaxValueBytes (here the 3 MiB body limit) in one write, over etcd's
// default 1.5 MiB and the client's default 2 MiB.
func TestEmbeddedFitsMaxValue(t *testing.T) {
	const limit = 3 << 20
	s := startWithLimit(t, limit)
	value := bytes.Repeat([]byte("v"), limit)
	if _, err := s.Create(t.Context(), "/big", value); err != nil {
		t.Fatalf("Create of %d bytes: %v", limit, err)
	}
}

// TestTooLargeIsErrTooLarge: a value etcd refuses as too large is the
// contract's ErrTooLarge, with its size, not an error of etcd's.
func TestTooLargeIsErrTooLarge(t *testing.T) {
	s := startWithLimit(t, 0)
	value := bytes.Repeat([]byte("v"), 2<<20)
	for name, write := range map[string]func() error{
		"create": func() error { _, err := s.Create(t.Context(), "/big", value); return err },
		"update": func() error {
			rev, err := s.Create(t.Context(), "/small", []byte("v"))
			if err != nil {
				return err
			}
			_, err = s.Update(t.Context(), "/small", value, rev)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := write()
			var size *storage.SizeError
			if !errors.As(err, &size) || size.Size != int64(len(value)) || !errors.Is(err, storage.ErrTooLarge) {
				t.Fatalf("err = %v, want a SizeError of %d bytes", err, len(value))
			}
		})
	}
}
