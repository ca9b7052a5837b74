package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

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

func parseCheckFlags(args []string, stderr io.Writer) (checkConfig, error) {
	var cfg checkConfig
	fs := flag.NewFlagSet("specd check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Schemas, "schemas", "", "directory of OpenAPI schema files to check (required)")
	fs.StringVar(&cfg.Previous, "previous", "", "directory of the previous schema files: report every incompatible change")
	fs.StringVar(&cfg.Output, "output", "text", "text or json")
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed of the random objects generated from the schemas")
	fs.IntVar(&cfg.Rounds, "rounds", 20, "random objects generated per resource version (0: none)")
	fs.Var((*cliflag.List)(&cfg.EtcdServers), "etcd-servers", "comma-separated URLs of the etcd specd serve stores in: with --previous, read (only) whether objects are stored in a removed version")
	cfg.EtcdTLS.Register(fs)
	fs.DurationVar(&cfg.EtcdTimeout, "etcd-timeout", 10*time.Second, "bound of the connection to etcd and of each read")
	cfg.Encryption.Register(fs)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	case cfg.Schemas == "":
		return cfg, errors.New("--schemas is required")
	case cfg.Output != "text" && cfg.Output != "json":
		return cfg, fmt.Errorf("--output %q: must be text or json", cfg.Output)
	case cfg.Rounds < 0:
		return cfg, fmt.Errorf("--rounds %d: must not be negative", cfg.Rounds)
	case len(cfg.EtcdServers) > 0 && cfg.Previous == "":
		return cfg, errors.New("--etcd-servers needs --previous: it tells whether a removed version still has objects")
	case cfg.EtcdTimeout <= 0:
		return cfg, fmt.Errorf("--etcd-timeout %s: must be positive", cfg.EtcdTimeout)
	case cfg.Encryption.Path != "" && len(cfg.EtcdServers) == 0:
		return cfg, errors.New("--encryption-provider-config needs --etcd-servers: it decrypts the objects read there")
	}
	if err := cfg.EtcdTLS.Check(cfg.EtcdServers); err != nil {
		return cfg, err
	}
	var err error
	cfg.decrypt, err = cfg.Encryption.Load(engine.DefaultPrefix, slog.New(slog.DiscardHandler))
	return cfg, err
}

// checkCommand exits 0 when the schemas are clean, 1 on any problem or
// error finding, 2 on a usage error.
func checkCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseCheckFlags(args, stderr)
	if err != nil {
		return exitCode(fmt.Errorf("%w: %w", errUsage, err), "specd check", stderr)
	}
	report := runCheck(ctx, cfg, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "specd check: interrupted")
		return 1
	}
	write := report.WriteText
	if cfg.Output == "json" {
		write = report.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "specd check: %v\n", err)
		return 1
	}
	if report.Failed() {
		return 1
	}
	return 0
}

// runCheck is the check cfg asks for, its progress drawn on stderr.
func runCheck(ctx context.Context, cfg checkConfig, stderr io.Writer) *check.Report {
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
