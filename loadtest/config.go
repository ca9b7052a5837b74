package loadtest

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Phase names, in the order the default run uses them.
const (
	PhaseCreate    = "create"
	PhaseGet       = "get"
	PhaseList      = "list"
	PhaseListPaged = "list-paged"
	// PhaseListCache is a full list with resourceVersion=0: served from
	// the watch cache by a server that has one.
	PhaseListCache = "list-cache"
	PhaseUpdate    = "update"
	PhaseDelete    = "delete"
	// PhaseCRDs creates --crds CRDs through the API, one after another,
	// each waited for until Established: what the Nth CRD costs.
	PhaseCRDs = "crds"
)

// DefaultPhases is the value of --phases when it is not given.
const DefaultPhases = "create,get,list,list-paged,update,delete"

var knownPhases = map[string]bool{
	PhaseCreate: true, PhaseGet: true, PhaseList: true,
	PhaseListPaged: true, PhaseUpdate: true, PhaseDelete: true, PhaseListCache: true, PhaseCRDs: true,
}

// errInvalidConfig is wrapped by every flag validation error.
var errInvalidConfig = errors.New("loadtest: invalid flags")

// Config is one run of the load tool, as given by its flags.
type Config struct {
	Server     string // base URL; overridden by the kubeconfig's host unless set explicitly
	serverSet  bool   // --server was given on the command line
	Kubeconfig string

	Group     string // empty means the legacy core group (/api/v1)
	Version   string
	Resource  string // plural
	Kind      string
	Namespace string // empty means a cluster-scoped resource

	Objects     int
	Concurrency int
	Phases      []string
	PageSize    int
	ListRepeat  int
	Fields      int
	FieldSize   int
	MaxRetries  int

	CRDs      int    // the crds phase: how many CRDs
	CRDStep   int    // the crds phase reports every CRDStep CRDs
	CRDGroups string // "one": every CRD in crds.bench.specd.io; "each": a group per CRD

	PID    int // server pid for RSS; 0 means look it up
	Output string

	Timeout        time.Duration // deadline of the whole run
	RequestTimeout time.Duration // deadline of one HTTP request
}

// addFlags binds the tool's flags on fs to cfg, but for --phases, whose
// value it returns.
func addFlags(fs *pflag.FlagSet, cfg *Config) *string {
	fs.StringVar(&cfg.Server, "server", "http://127.0.0.1:8080", "base URL of the API server")
	fs.StringVar(&cfg.Kubeconfig, "kubeconfig", "", "kubeconfig file for host, TLS and credentials (--server still wins when given)")
	fs.StringVar(&cfg.Group, "group", "bench.specd.io", "API group of the resource (empty for the core group)")
	fs.StringVar(&cfg.Version, "version", "v1", "API version of the resource")
	fs.StringVar(&cfg.Resource, "resource", "payloads", "resource (plural name)")
	fs.StringVar(&cfg.Kind, "kind", "Payload", "kind of the objects")
	fs.StringVar(&cfg.Namespace, "namespace", "bench", "namespace of the objects (empty for a cluster-scoped resource)")
	fs.IntVar(&cfg.Objects, "objects", 10000, "number of objects")
	fs.IntVar(&cfg.Concurrency, "concurrency", 16, "number of concurrent workers")
	phases := fs.String("phases", DefaultPhases, "comma-separated phases to run, in order")
	fs.IntVar(&cfg.PageSize, "page-size", 500, "limit per page in the list-paged phase")
	fs.IntVar(&cfg.ListRepeat, "list-repeat", 3, "how many times the list and list-paged phases walk the whole collection")
	fs.IntVar(&cfg.Fields, "fields", 20, "number of string fields in spec (f00, f01, ...)")
	fs.IntVar(&cfg.FieldSize, "field-size", 70, "length of each spec field value (70 with 20 fields gives about 1.7 KB of JSON)")
	fs.IntVar(&cfg.MaxRetries, "max-retries", 10, "retries of an update that gets 409 Conflict")
	fs.IntVar(&cfg.CRDs, "crds", 1000, "crds phase: number of CRDs to create, one after another")
	fs.IntVar(&cfg.CRDStep, "crd-step", 100, "crds phase: report the mean time, RSS and server CPU of every this many CRDs")
	fs.StringVar(&cfg.CRDGroups, "crd-groups", "one", "crds phase: one (every CRD in "+crdGroup+") or each (a group of its own per CRD)")
	fs.IntVar(&cfg.PID, "pid", 0, "server process id for RSS; 0 finds the process listening on the server's loopback port (Linux)")
	fs.StringVar(&cfg.Output, "output", "text", "report format: text or json")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Minute, "deadline of the whole run")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", 60*time.Second, "deadline of one HTTP request")
	return phases
}

// parseConfig parses args into a validated Config.
func parseConfig(args []string) (Config, error) {
	var cfg Config
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	phases := addFlags(fs, &cfg)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected arguments %q", errInvalidConfig, fs.Args())
	}
	return cfg, cfg.complete(fs, *phases)
}

// complete sets what the flags of fs say beyond their values, and
// validates cfg.
func (c *Config) complete(fs *pflag.FlagSet, phases string) error {
	c.serverSet = fs.Changed("server")
	c.Phases = splitPhases(phases)
	return c.Validate()
}

func splitPhases(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Validate collects every invalid flag into one error.
func (c Config) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }

	if u, err := url.Parse(c.Server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("--server %q: want an http:// or https:// URL with a host", c.Server)
	}
	for _, f := range [][2]string{{"--version", c.Version}, {"--resource", c.Resource}, {"--kind", c.Kind}} {
		if f[1] == "" {
			bad("%s must not be empty", f[0])
		}
	}
	if strings.Contains(c.Resource, "/") || strings.Contains(c.Namespace, "/") || strings.Contains(c.Group, "/") {
		bad("--group, --resource and --namespace must not contain '/'")
	}
	positive := []struct {
		name string
		v    int
	}{
		{"--objects", c.Objects}, {"--concurrency", c.Concurrency}, {"--page-size", c.PageSize},
		{"--list-repeat", c.ListRepeat}, {"--fields", c.Fields}, {"--field-size", c.FieldSize},
		{"--crds", c.CRDs}, {"--crd-step", c.CRDStep},
	}
	for _, p := range positive {
		if p.v < 1 {
			bad("%s must be at least 1, got %d", p.name, p.v)
		}
	}
	if c.Fields > 100 {
		bad("--fields must be at most 100 (f00..f99), got %d", c.Fields)
	}
	if c.MaxRetries < 0 {
		bad("--max-retries must not be negative, got %d", c.MaxRetries)
	}
	if c.PID < 0 {
		bad("--pid must not be negative, got %d", c.PID)
	}
	if c.CRDGroups != "one" && c.CRDGroups != "each" {
		bad("--crd-groups must be one or each, got %q", c.CRDGroups)
	}
	if c.Output != "text" && c.Output != "json" {
		bad("--output must be text or json, got %q", c.Output)
	}
	if c.Timeout <= 0 || c.RequestTimeout <= 0 {
		bad("--timeout and --request-timeout must be positive")
	}
	if len(c.Phases) == 0 {
		bad("--phases must name at least one phase")
	}
	for _, p := range c.Phases {
		if !knownPhases[p] {
			bad("--phases: unknown phase %q (known: %s,%s)", p, DefaultPhases, PhaseCRDs)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w:\n  %s", errInvalidConfig, strings.Join(errs, "\n  "))
}
