package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// common are the flags both modes take.
type common struct {
	kubeconfig string
	namespace  string // where the Lease is
	name       string // the Lease's name
	identity   string // who this process says it is, in its log (and in elect mode, the Lease)
	lease      time.Duration
	renew      time.Duration
	retry      time.Duration
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "path to the kubeconfig of the API server")
	fs.StringVar(&c.namespace, "namespace", "default", "namespace of the leader election Lease")
	fs.StringVar(&c.name, "election-id", "specd-e2e", "name of the leader election Lease")
	fs.StringVar(&c.identity, "identity", "", "this candidate's name (required)")
	fs.DurationVar(&c.lease, "lease-duration", 15*time.Second, "how long a Lease holds without renewal")
	fs.DurationVar(&c.renew, "renew-deadline", 10*time.Second, "how long the leader tries to renew")
	fs.DurationVar(&c.retry, "retry-period", 2*time.Second, "how often candidates try")
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		slog.Error("exiting", "err", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: controller manager|elect [flags]")
	}
	mode, args := args[0], args[1:]
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	var c common
	c.register(fs)
	var m managerFlags
	if mode == "manager" {
		m.register(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.identity == "" {
		return fmt.Errorf("--identity is required")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("identity", c.identity)
	slog.SetDefault(log)
	// The libraries log through logr and klog: into the same handler.
	klog.SetLogger(logr.FromSlogHandler(log.Handler()))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	switch mode {
	case "manager":
		return runManager(ctx, log, cfg, c, m)
	case "elect":
		return runElect(ctx, log, cfg, c)
	}
	return fmt.Errorf("unknown mode %q: want manager or elect", mode)
}
