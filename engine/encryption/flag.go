package encryption

import (
	"log/slog"

	"github.com/specd-io/specd/engine/storage"
	"github.com/spf13/pflag"
)

// Flag is --encryption-provider-config, of specd serve and check.
type Flag struct {
	Path string
}

// Register defines the flag on fs.
func (e *Flag) Register(fs *pflag.FlagSet) {
	fs.StringVar(&e.Path, "encryption-provider-config", "", "kube-apiserver's EncryptionConfiguration file (apiserver.config.k8s.io/v1): the resources to encrypt in etcd and the providers (identity, aescbc, aesgcm, secretbox) and keys to do it with")
}

// Load reads the file, if one was named, and returns what wraps the
// storage, whose keys start with prefix, so that the resources it covers
// are encrypted at rest; without a file the storage is returned as it is.
func (e Flag) Load(prefix string, log *slog.Logger) (func(storage.Storage) storage.Storage, error) {
	if e.Path == "" {
		return func(st storage.Storage) storage.Storage { return st }, nil
	}
	c, err := Load(e.Path)
	if err != nil {
		return nil, err
	}
	log.Info("encryption at rest", "config", e.Path)
	return func(st storage.Storage) storage.Storage { return Wrap(st, c, prefix) }, nil
}
