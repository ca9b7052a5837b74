package main

import (
	"context"
	"log/slog"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
)

// storedIn is `specd check --etcd-servers`'s reader of the versions
// objects are stored in: connected on the first question, decrypted as
// --encryption-provider-config says.
func storedIn(cfg checkConfig, log *slog.Logger) *migrate.LazyStored {
	open := func(ctx context.Context) (storage.Storage, func(), error) {
		cli, err := etcdstorage.Connect(ctx, cfg.EtcdTLS.clientConfig(cfg.EtcdServers, log))
		if err != nil {
			return nil, nil, err
		}
		return cfg.decrypt(etcdstorage.New(cli)), func() { _ = cli.Close() }, nil
	}
	return &migrate.LazyStored{Open: open, Keys: engine.Keys{}, Timeout: cfg.EtcdTimeout}
}
