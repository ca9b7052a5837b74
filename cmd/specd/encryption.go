package main

import (
	"flag"
	"log/slog"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/storage"
)

// encryptionFlag is --encryption-provider-config, of serve and check.
type encryptionFlag struct {
	Path string
}

func (e *encryptionFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&e.Path, "encryption-provider-config", "", "kube-apiserver's EncryptionConfiguration file (apiserver.config.k8s.io/v1): the resources to encrypt in etcd and the providers (identity, aescbc, aesgcm, secretbox) and keys to do it with")
}

// load reads the file, if one was named, and returns what wraps the
// storage so that the resources it covers are encrypted at rest; without
// a file the storage is returned as it is.
func (e encryptionFlag) load(log *slog.Logger) (func(storage.Storage) storage.Storage, error) {
	if e.Path == "" {
		return func(st storage.Storage) storage.Storage { return st }, nil
	}
	c, err := encryption.Load(e.Path)
	if err != nil {
		return nil, err
	}
	log.Info("encryption at rest", "config", e.Path)
	return func(st storage.Storage) storage.Storage { return encryption.Wrap(st, c, engine.DefaultPrefix) }, nil
}
