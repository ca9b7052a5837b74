package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/internal/cliflag"
)

const snapshotUsage = `Usage:
  specd snapshot save FILE [--data-dir DIR | --etcd-servers URL [--etcd-cafile F --etcd-certfile F --etcd-keyfile F]]
  specd snapshot restore FILE --data-dir DIR [--bump-revision N]
`

// snapshotCommand saves a snapshot of the etcd specd stores in, or
// restores one into a new data directory of the embedded etcd.
func snapshotCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, snapshotUsage)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var err error
	switch args[0] {
	case "save":
		err = snapshotSave(ctx, args[1:], stdout, stderr, log)
	case "restore":
		err = snapshotRestore(args[1:], stdout, stderr, log)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, snapshotUsage)
		return 0
	default:
		err = fmt.Errorf("%w: unknown subcommand %q\n\n%s", errUsage, args[0], snapshotUsage)
	}
	return exitCode(err, "specd snapshot", stderr)
}

func snapshotSave(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("specd snapshot save", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "", "data directory of the embedded etcd, served by a running specd or not")
	servers := fs.String("etcd-servers", "", "URL of the one etcd member to take the snapshot from")
	var tls etcdstorage.TLSFlags
	tls.Register(fs)
	file, err := oneFile(fs, args)
	if err != nil {
		return err
	}
	var list cliflag.List
	_ = list.Set(*servers) // never fails
	version, err := saveFrom(ctx, *dataDir, list, tls, file, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "snapshot saved to %s (etcd %s)\n", file, version)
	return nil
}

// saveFrom saves a snapshot from the etcd of dataDir or of servers,
// whichever is given.
func saveFrom(ctx context.Context, dataDir string, servers []string, tls etcdstorage.TLSFlags, file string, log *slog.Logger) (string, error) {
	switch {
	case len(servers) > 0 && dataDir != "":
		return "", fmt.Errorf("%w: --data-dir and --etcd-servers: give one", errUsage)
	case len(servers) > 0:
		if err := tls.Check(servers); err != nil {
			return "", fmt.Errorf("%w: %w", errUsage, err)
		}
		return etcdcare.SaveSnapshot(ctx, tls.ClientConfig(servers, log), file)
	case dataDir != "":
		return etcdcare.SaveEmbeddedSnapshot(ctx, dataDir, file, log)
	default:
		return "", fmt.Errorf("%w: give --data-dir or --etcd-servers", errUsage)
	}
}

func snapshotRestore(args []string, stdout, stderr io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("specd snapshot restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "", "new data directory for specd serve --data-dir (absent or empty)")
	bump := fs.Uint64("bump-revision", etcdcare.DefaultRevisionBump,
		"move the revision on by this much and mark the history compacted, so that clients that saw later revisions list again; 0 keeps the snapshot's")
	file, err := oneFile(fs, args)
	if err != nil {
		return err
	}
	if *dataDir == "" {
		return fmt.Errorf("%w: --data-dir is required", errUsage)
	}
	if err := etcdcare.RestoreSnapshot(file, *dataDir, *bump, log); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "snapshot %s restored into %s: start specd serve --data-dir %s\n", file, *dataDir, *dataDir)
	return nil
}

// oneFile parses fs's flags, given before or after the one file the
// command takes, and returns the file.
func oneFile(fs *flag.FlagSet, args []string) (string, error) {
	var files []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return "", err
		} else if err != nil {
			return "", fmt.Errorf("%w: %w", errUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return "", fmt.Errorf("%w: want one FILE, got %d\n\n%s", errUsage, len(files), snapshotUsage)
	}
	return files[0], nil
}
