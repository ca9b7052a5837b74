package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/internal/cliflag"
)

// snapshotCommand saves a snapshot of the etcd specd stores in, or
// restores one into a new data directory of the embedded etcd; their
// logs go to stderr.
func snapshotCommand(stderr io.Writer) *cobra.Command {
	cmd := cliflag.Group(&cobra.Command{
		Use:   "snapshot",
		Short: "Save a snapshot of specd's etcd, or restore one into a new data directory",
	})
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cmd.AddCommand(snapshotSaveCommand(log), snapshotRestoreCommand(log))
	return cmd
}

func snapshotSaveCommand(log *slog.Logger) *cobra.Command {
	var dataDir string
	var servers cliflag.List
	var tls etcdstorage.TLSFlags
	cmd := &cobra.Command{
		Use:   "save FILE (--data-dir DIR | --etcd-servers URL)",
		Short: "Save a snapshot of the embedded etcd of a data directory, or of an etcd member",
		Example: `  specd snapshot save backup.db --data-dir data
  specd snapshot save backup.db --etcd-servers https://etcd-0:2379 --etcd-cafile ca.crt --etcd-certfile c.crt --etcd-keyfile c.key`,
		Args: oneFile,
		RunE: cliflag.RunE(func(cmd *cobra.Command, args []string) error {
			version, err := saveFrom(cmd.Context(), dataDir, servers, tls, args[0], log)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "snapshot saved to %s (etcd %s)\n", args[0], version)
			return nil
		}),
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "data directory of the embedded etcd, served by a running specd or not")
	cmd.Flags().Var(&servers, "etcd-servers", "URL of the one etcd member to take the snapshot from")
	tls.Register(cmd.Flags())
	return cmd
}

// saveFrom saves a snapshot from the etcd of dataDir or of servers,
// whichever is given.
func saveFrom(ctx context.Context, dataDir string, servers []string, tls etcdstorage.TLSFlags, file string, log *slog.Logger) (string, error) {
	switch {
	case len(servers) > 0 && dataDir != "":
		return "", cliflag.Usagef("--data-dir and --etcd-servers: give one")
	case len(servers) > 0:
		if err := tls.Check(servers); err != nil {
			return "", cliflag.Usage(err)
		}
		return etcdcare.SaveSnapshot(ctx, tls.ClientConfig(servers, log), file)
	case dataDir != "":
		return etcdcare.SaveEmbeddedSnapshot(ctx, dataDir, file, log)
	default:
		return "", cliflag.Usagef("give --data-dir or --etcd-servers")
	}
}

func snapshotRestoreCommand(log *slog.Logger) *cobra.Command {
	var dataDir string
	var bump uint64
	cmd := &cobra.Command{
		Use:     "restore FILE --data-dir DIR",
		Short:   "Restore a snapshot into a new data directory for specd serve --data-dir",
		Example: `  specd snapshot restore backup.db --data-dir data-restored`,
		Args:    oneFile,
		RunE: cliflag.RunE(func(cmd *cobra.Command, args []string) error {
			if dataDir == "" {
				return cliflag.Usagef("--data-dir is required")
			}
			if err := etcdcare.RestoreSnapshot(args[0], dataDir, bump, log); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "snapshot %s restored into %s: start specd serve --data-dir %s\n", args[0], dataDir, dataDir)
			return nil
		}),
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "new data directory for specd serve --data-dir (absent or empty)")
	cmd.Flags().Uint64Var(&bump, "bump-revision", etcdcare.DefaultRevisionBump,
		"move the revision on by this much and mark the history compacted, so that clients that saw later revisions list again; 0 keeps the snapshot's")
	return cmd
}

// oneFile is the Args of a command that takes one file.
func oneFile(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return cliflag.Usagef("want one FILE, got %d", len(args))
	}
	return nil
}
