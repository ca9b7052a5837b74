package loadtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/internal/cliflag"
)

// NewCommand is the load tool as `specd bench`. It exits 0 when every
// phase ran to the end without an error, 1 when an operation failed, the
// run deadline cut it short or the server was unusable, 2 for bad flags.
// The report goes to stdout, progress and errors to stderr.
func NewCommand() *cobra.Command {
	var cfg Config
	var phases *string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load a running server, specd or kube-apiserver, and report each phase's rate, latency and memory",
		Example: `  specd bench --kubeconfig data/admin.kubeconfig --objects 2000
  specd bench --server http://127.0.0.1:8080 --phases create,list-cache --output json`,
		Args: cliflag.NoArgs,
		RunE: cliflag.RunE(func(cmd *cobra.Command, _ []string) error {
			if err := cfg.complete(cmd.Flags(), *phases); err != nil {
				return cliflag.Usage(err)
			}
			return runCommand(cmd.Context(), cfg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		}),
	}
	phases = addFlags(cmd.Flags(), &cfg)
	return cmd
}

// runCommand runs cfg and writes its report.
func runCommand(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	rep, err := Run(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if cfg.Output == "json" {
		err = writeJSON(stdout, rep)
	} else {
		err = writeText(stdout, rep)
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return cliflag.Exit(1)
	}
	return nil
}

// DefaultConfig is the configuration of a run with no flags.
func DefaultConfig() Config {
	cfg, err := parseConfig(nil)
	if err != nil {
		panic(err) // the defaults are valid; TestDefaultConfig checks it
	}
	return cfg
}

// Run runs the phases of cfg against the server and returns their report.
// Progress lines go to progress. The run stops by itself at cfg.Timeout or
// when ctx is done; the phases that ran are reported either way.
func Run(ctx context.Context, cfg Config, progress io.Writer) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	defer c.close()
	if err := preflight(ctx, c, cfg.Phases, progress); err != nil {
		return nil, err
	}

	gen := newGenerator(cfg)
	r := &runner{cfg: cfg, client: c, gen: gen, expected: cfg.Objects, salt: int(time.Now().UnixNano() % 1e6), progress: progress}
	rep := &Report{
		Server:      c.base,
		Collection:  c.collection,
		Kind:        cfg.Kind,
		Objects:     cfg.Objects,
		Concurrency: cfg.Concurrency,
		ObjectBytes: len(gen.Object(0)),
		Started:     time.Now().UTC(),
	}
	rep.PID = serverPID(cfg, c.base, progress)
	r.pid = rep.PID
	rep.objectPhases = usesCollection(cfg.Phases)
	if slices.Contains(cfg.Phases, PhaseCRDs) {
		rep.CRDs, rep.CRDGroups = cfg.CRDs, cfg.CRDGroups
	}

	for _, name := range cfg.Phases {
		pr := runPhase(ctx, r, name)
		rep.Phases = append(rep.Phases, pr)
		fmt.Fprintf(progress, "bench: %-10s %d ops, %d errors, %s\n", name, pr.Ops, pr.ErrorCount(), pr.Duration.Round(time.Millisecond))
		if name == PhaseCreate {
			rep.RSSGrowthPer10k = growthPer10k(pr)
		}
		if ctx.Err() != nil {
			rep.Interrupted = true
			fmt.Fprintf(progress, "bench: stopped: %v\n", context.Cause(ctx))
			break
		}
	}
	return rep, nil
}

// runPhase runs one phase and measures it, with the server RSS around it.
func runPhase(ctx context.Context, r *runner, name string) PhaseResult {
	capacity := r.cfg.Objects
	switch name {
	case PhaseCRDs:
		capacity = r.cfg.CRDs
	case PhaseList, PhaseListCache:
		capacity = r.cfg.ListRepeat
	case PhaseListPaged:
		capacity = r.cfg.ListRepeat * (r.expected/r.cfg.PageSize + 1)
	}
	rec := newRecorder(capacity)
	pr := PhaseResult{Name: name, RSSBefore: r.rss()}
	cpuBefore := r.serverCPU()
	start := time.Now()
	r.phase(name)(ctx, rec)
	pr.Duration = time.Since(start)
	pr.RSSAfter = r.rss()
	pr.CPUPerOp = perOp(cpuBefore, r.serverCPU(), len(rec.latencies))
	pr.Ops = len(rec.latencies)
	pr.Errors = rec.errors
	pr.Retries = rec.retries
	pr.Items = rec.items
	pr.Steps = rec.steps
	pr.Latency = summarize(rec.latencies)
	pr.Interrupted = ctx.Err() != nil
	return pr
}

// growthPer10k scales the RSS growth of the create phase to 10,000 objects.
func growthPer10k(create PhaseResult) *int64 {
	created := create.Ops - create.ErrorCount()
	if create.RSSBefore == nil || create.RSSAfter == nil || created <= 0 {
		return nil
	}
	g := (*create.RSSAfter - *create.RSSBefore) * 10000 / int64(created)
	return &g
}

// serverPID is --pid, or on Linux the process listening on the server's
// loopback port; 0 when unknown.
func serverPID(cfg Config, server string, progress io.Writer) int {
	if cfg.PID > 0 {
		return cfg.PID
	}
	if runtime.GOOS != "linux" {
		return 0
	}
	pid, err := findServerPID("/proc", server)
	if err != nil {
		fmt.Fprintf(progress, "bench: server RSS unknown: %v\n", err)
		return 0
	}
	return pid
}

// preflight checks that the server serves what the phases use: the CRDs
// for the crds phase, and for the others the collection, creating the
// namespace first where the server has a core namespaces API (a real
// kube-apiserver); servers without one are left alone.
func preflight(ctx context.Context, c *client, phases []string, progress io.Writer) error {
	if slices.Contains(phases, PhaseCRDs) {
		if _, err := served(ctx, c, crdCollection, "the crds phase needs a server with CRDs"); err != nil {
			return err
		}
	}
	if !usesCollection(phases) {
		return nil
	}
	if ns := c.namespace(); ns != "" {
		code, _, err := c.do(ctx, http.MethodGet, "/api/v1/namespaces/"+ns, nil, nil)
		if err == nil && code == http.StatusNotFound {
			body := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
			if code, _, err := c.do(ctx, http.MethodPost, "/api/v1/namespaces", nil, body); err == nil && code == http.StatusCreated {
				fmt.Fprintf(progress, "bench: created namespace %s\n", ns)
			}
		}
	}
	body, err := served(ctx, c, c.collection, "is the resource served? for specd, put examples/bench/bench.yaml in the schemas directory")
	if err != nil {
		return err
	}
	if gjson.GetBytes(body, "items.#").Int() > 0 {
		fmt.Fprintf(progress, "bench: warning: %s is not empty; creates of existing names will fail with 409\n", c.collection)
	}
	return nil
}

// usesCollection reports whether a phase besides crds, which creates
// CRDs and not objects, is among phases.
func usesCollection(phases []string) bool {
	return slices.ContainsFunc(phases, func(p string) bool { return p != PhaseCRDs })
}

// served lists one item of collection, and returns the list, or an
// error with hint when the server does not answer 200.
func served(ctx context.Context, c *client, collection, hint string) ([]byte, error) {
	code, body, err := c.do(ctx, http.MethodGet, collection, url.Values{"limit": {"1"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot reach %s: %w", c.base, err)
	}
	if code != http.StatusOK {
		msg := gjson.GetBytes(body, "message").String()
		return nil, fmt.Errorf("GET %s%s: HTTP %d %s (%s)", c.base, collection, code, msg, hint)
	}
	return body, nil
}
