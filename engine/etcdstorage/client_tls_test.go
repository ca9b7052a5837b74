package etcdstorage_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
)

// TestConnectTLS: against an etcd that requires client certificates,
// the CA and a client certificate connect; without the certificate, or
// without TLS, the client is refused.
func TestConnectTLS(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.StartTLS(t)
	quiet := slog.New(slog.DiscardHandler)

	ctx := context.Background()
	cli, err := etcdstorage.Connect(ctx, etcdstorage.ClientConfig{Endpoints: etcd.Endpoints,
		CAFile: etcd.CAFile, CertFile: etcd.CertFile, KeyFile: etcd.KeyFile, Logger: quiet})
	if err != nil {
		t.Fatalf("with the CA and a client certificate: %v", err)
	}
	defer cli.Close()
	if _, err := etcdstorage.New(cli).Create(ctx, "/tls", []byte("v")); err != nil {
		t.Fatal(err)
	}

	refused := map[string]etcdstorage.ClientConfig{
		"no TLS":                {Endpoints: etcd.Endpoints},
		"no client certificate": {Endpoints: etcd.Endpoints, CAFile: etcd.CAFile},
		"plain text":            {Endpoints: []string{"http://" + strings.TrimPrefix(etcd.Endpoints[0], "https://")}},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			c.Logger = quiet
			if cli, err := etcdstorage.Connect(ctx, c); err == nil {
				cli.Close()
				t.Fatal("connected")
			}
		})
	}
}

// TestConnectTLSConfig: TLS files that cannot work are refused before
// any dial.
func TestConnectTLSConfig(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.StartTLS(t)
	cases := map[string]struct {
		c    etcdstorage.ClientConfig
		want string
	}{
		"cert without key": {etcdstorage.ClientConfig{Endpoints: etcd.Endpoints, CertFile: etcd.CertFile}, "both"},
		"key without cert": {etcdstorage.ClientConfig{Endpoints: etcd.Endpoints, KeyFile: etcd.KeyFile}, "both"},
		"http endpoint": {etcdstorage.ClientConfig{Endpoints: []string{"http://127.0.0.1:2379"},
			CAFile: etcd.CAFile, CertFile: etcd.CertFile, KeyFile: etcd.KeyFile}, "must be https://"},
		"CA not PEM":      {etcdstorage.ClientConfig{Endpoints: etcd.Endpoints, CAFile: etcd.KeyFile}, "no PEM certificate"},
		"missing CA file": {etcdstorage.ClientConfig{Endpoints: etcd.Endpoints, CAFile: etcd.CAFile + ".missing"}, "no such file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cli, err := etcdstorage.Connect(context.Background(), tc.c)
			if err == nil {
				cli.Close()
				t.Fatal("connected")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}
