package etcdcare

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/client/v3/snapshot"
	etcdutl "go.etcd.io/etcd/etcdutl/v3/snapshot"
	"go.uber.org/zap/zapcore"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// SaveSnapshot writes a snapshot of the etcd member that c names (one
// endpoint: a snapshot is one member's state) to path, with etcd's hash
// at its end, and returns the member's version. Writes may go on
// meanwhile: the snapshot is the member's state at one revision, with
// every write it acknowledged before it. path appears only complete.
func SaveSnapshot(ctx context.Context, c etcdstorage.ClientConfig, path string) (string, error) {
	if len(c.Endpoints) != 1 {
		return "", fmt.Errorf("a snapshot is of one etcd member: name one endpoint, not %d", len(c.Endpoints))
	}
	cfg, err := c.Config(ctx)
	if err != nil {
		return "", err
	}
	version, err := snapshot.SaveWithVersion(ctx, etcdstorage.ZapLogger(logger(c.Logger), zapcore.WarnLevel), cfg, path)
	if err != nil {
		return "", fmt.Errorf("snapshot of etcd %s to %s: %w", c.Endpoints[0], path, err)
	}
	return version, nil
}

// SaveEmbeddedSnapshot writes a snapshot of the embedded etcd in dataDir to
// path: through its socket while a specd serves from it, or by starting
// it for the time of the snapshot when none does.
func SaveEmbeddedSnapshot(ctx context.Context, dataDir, path string, log *slog.Logger) (string, error) {
	log = logger(log)
	if _, err := os.Stat(filepath.Join(dataDir, "member")); err != nil {
		return "", fmt.Errorf("data directory %s holds no etcd data: %w", dataDir, err)
	}
	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: dataDir, Logger: log})
	switch {
	case errors.Is(err, etcdstorage.ErrInUse):
		socket, err := etcdstorage.SocketEndpoint(dataDir)
		if err != nil {
			return "", err
		}
		return SaveSnapshot(ctx, etcdstorage.ClientConfig{Endpoints: []string{socket}, Logger: log}, path)
	case err != nil:
		return "", err
	}
	defer e.Close()
	return SaveSnapshot(ctx, etcdstorage.ClientConfig{Endpoints: e.Endpoints(), Logger: log}, path)
}

// DefaultRevisionBump is how far RestoreSnapshot moves the revision on by
// default: far past any revision a client may have seen after the
// snapshot was taken (etcd's advice for Kubernetes).
const DefaultRevisionBump = 1_000_000_000

// RestoreSnapshot makes dataDir (absent or empty) the data directory of
// an embedded etcd that holds what the snapshot at path holds. The
// revision is moved on by bump and the history up to it marked
// compacted, so clients that saw later revisions of the lost history
// are answered 410 Gone and list again instead of waiting for
// revisions that will never come; 0 keeps the snapshot's revision.
func RestoreSnapshot(path, dataDir string, bump uint64, log *slog.Logger) error {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return fmt.Errorf("data directory %s: %w", dataDir, err)
	}
	// etcd would make the directory with its own mode; specd's embedded
	// etcd wants it private (etcdstorage.StartEmbedded).
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	peer := etcdstorage.PeerURL(abs)
	m := etcdutl.NewV3(etcdstorage.ZapLogger(logger(log), zapcore.WarnLevel))
	err = m.Restore(etcdutl.RestoreConfig{
		SnapshotPath:        path,
		Name:                etcdstorage.MemberName,
		OutputDataDir:       abs,
		PeerURLs:            []string{peer.String()},
		InitialCluster:      etcdstorage.MemberName + "=" + peer.String(),
		InitialClusterToken: etcdstorage.ClusterToken,
		RevisionBump:        bump,
		MarkCompacted:       bump > 0,
	})
	if err != nil {
		return fmt.Errorf("restore %s into %s: %w", path, dataDir, err)
	}
	return nil
}

func logger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.Default()
	}
	return log
}
