package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/cliflag"
	"github.com/specd-io/specd/internal/progress"
)

// checkConfig is everything `specd check` is told on its command line.
type checkConfig struct {
	Schemas  string
	Previous string
	Output   string
	Seed     int64
	Rounds   int
	// EtcdServers, when given, is where check reads whether objects are
	// stored in a version that is removed; EtcdTimeout bounds each read.
	EtcdServers []string
	EtcdTLS     etcdstorage.TLSFlags
	EtcdTimeout time.Duration
	// Encryption is the --encryption-provider-config specd serve stores
	// with: check reads encrypted objects with it.
	Encryption encryption.Flag
	// decrypt wraps the storage with Encryption's file, loaded.
	decrypt func(storage.Storage) storage.Storage
}

// checkCommand is `specd check`: it exits 0 when the schemas are clean, 1
// on any problem or error finding, 2 on a usage error.
func checkCommand() *cobra.Command {
	var cfg checkConfig
	cmd := &cobra.Command{
		Use:   "check --schemas DIR",
		Short: "Check a schema directory, and what changed since a previous one, without serving it",
		Long: "specd check compiles the schemas of --schemas as specd serve would, round-trips random objects of every\n" +
			"version through their conversion rules, and with --previous names every change that breaks clients or\n" +
			"stored objects; with --etcd-servers it reads whether objects are stored in a version that is removed.",
		Example: `  specd check --schemas schemas
  specd check --schemas schemas --previous old-schemas --output json
  specd check --schemas schemas --previous old-schemas --etcd-servers https://etcd-0:2379 --etcd-cafile ca.crt`,
		Args: cliflag.NoArgs,
		RunE: cliflag.RunE(func(cmd *cobra.Command, _ []string) error {
			if err := cfg.complete(); err != nil {
				return cliflag.Usage(err)
			}
			return runCheck(cmd.Context(), cfg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		}),
	}
	checkFlags(cmd.Flags(), &cfg)
	_ = cmd.MarkFlagDirname("schemas") // defined just above
	_ = cmd.MarkFlagDirname("previous")
	cliflag.Values(cmd, "output", "text", "json")
	return cmd
}

func checkFlags(fs *pflag.FlagSet, cfg *checkConfig) {
	fs.StringVar(&cfg.Schemas, "schemas", "", "directory of OpenAPI schema files to check (required)")
	fs.StringVar(&cfg.Previous, "previous", "", "directory of the previous schema files: report every incompatible change")
	fs.StringVar(&cfg.Output, "output", "text", "text or json")
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed of the random objects generated from the schemas")
	fs.IntVar(&cfg.Rounds, "rounds", 20, "random objects generated per resource version (0: none)")
	fs.Var((*cliflag.List)(&cfg.EtcdServers), "etcd-servers", "comma-separated URLs of the etcd specd serve stores in: with --previous, read (only) whether objects are stored in a removed version")
	cfg.EtcdTLS.Register(fs)
	fs.DurationVar(&cfg.EtcdTimeout, "etcd-timeout", 10*time.Second, "bound of the connection to etcd and of each read")
	cfg.Encryption.Register(fs)
}

// complete says what is wrong with the flags, and loads the encryption
// configuration.
func (cfg *checkConfig) complete() error {
	switch {
	case cfg.Schemas == "":
		return errors.New("--schemas is required")
	case cfg.Output != "text" && cfg.Output != "json":
		return fmt.Errorf("--output %q: must be text or json", cfg.Output)
	case cfg.Rounds < 0:
		return fmt.Errorf("--rounds %d: must not be negative", cfg.Rounds)
	case len(cfg.EtcdServers) > 0 && cfg.Previous == "":
		return errors.New("--etcd-servers needs --previous: it tells whether a removed version still has objects")
	case cfg.EtcdTimeout <= 0:
		return fmt.Errorf("--etcd-timeout %s: must be positive", cfg.EtcdTimeout)
	case cfg.Encryption.Path != "" && len(cfg.EtcdServers) == 0:
		return errors.New("--encryption-provider-config needs --etcd-servers: it decrypts the objects read there")
	}
	if err := cfg.EtcdTLS.Check(cfg.EtcdServers); err != nil {
		return err
	}
	var err error
	cfg.decrypt, err = cfg.Encryption.Load(engine.DefaultPrefix, slog.New(slog.DiscardHandler))
	return err
}

// runCheck runs the check cfg asks for and writes its report.
func runCheck(ctx context.Context, cfg checkConfig, stdout, stderr io.Writer) error {
	report := checkReport(ctx, cfg, stderr)
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	write := report.WriteText
	if cfg.Output == "json" {
		write = report.WriteJSON
	}
	if err := write(stdout); err != nil {
		return err
	}
	if report.Failed() {
		return cliflag.Exit(1)
	}
	return nil
}

// checkReport is the check cfg asks for, its progress drawn on stderr.
func checkReport(ctx context.Context, cfg checkConfig, stderr io.Writer) *check.Report {
	run := check.Run{Schemas: cfg.Schemas, Previous: cfg.Previous, Seed: cfg.Seed, Rounds: cfg.Rounds}
	if len(cfg.EtcdServers) > 0 {
		log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
		objs := migrate.StoredInEtcd(cfg.EtcdTLS.ClientConfig(cfg.EtcdServers, log), cfg.decrypt, cfg.EtcdTimeout)
		defer objs.Close()
		run.Stored = objs
	}
	if bar := progress.New(stderr, "fuzz"); bar != nil {
		run.Progress = bar.Update
		defer bar.Done()
	}
	return run.Report(ctx)
}
