// Package etcdstorage implements storage.Storage on etcd's v3 client, and
// starts an embedded etcd server for single-node use and tests; the embedded
// one listens only on a unix socket in its data directory. Embedded and
// external clusters are reached through the same client, so there is one
// storage code path.
//
//	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: "./data"})
//	if err != nil { ... }
//	defer e.Close()
//	cli, err := etcdstorage.NewClient(ctx, e.Endpoints())
//	if err != nil { ... }
//	defer cli.Close()
//	store := engine.NewStore(etcdstorage.New(cli), engine.Options{})
package etcdstorage
