package etcdstorage_test

import (
	"context"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage"
)

func TestEmbeddedRestartKeepsData(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true}

	e, err := etcdstorage.StartEmbedded(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := etcdstorage.NewClient(ctx, e.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcdstorage.New(cli).Create(ctx, "/k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	_ = cli.Close()
	_ = e.Close()
	_ = e.Close() // a second Close is harmless

	e, err = etcdstorage.StartEmbedded(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cli, err = etcdstorage.NewClient(ctx, e.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	kv, err := etcdstorage.New(cli).Get(ctx, "/k")
	if err != nil || string(kv.Value) != "v" {
		t.Fatalf("after restart Get = %q, %v; want v", kv.Value, err)
	}
}

func TestStartEmbeddedNeedsDataDir(t *testing.T) {
	if _, err := etcdstorage.StartEmbedded(context.Background(), etcdstorage.EmbeddedConfig{}); err == nil {
		t.Fatal("StartEmbedded without DataDir succeeded")
	}
}

func TestNewClientUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections.
	if cli, err := etcdstorage.NewClient(ctx, []string{"http://127.0.0.1:1"}); err == nil {
		cli.Close()
		t.Fatal("NewClient succeeded against a closed port")
	}
	if _, err := etcdstorage.NewClient(ctx, nil); err == nil {
		t.Fatal("NewClient succeeded without endpoints")
	}
}
