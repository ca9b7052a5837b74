package plugins

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/plugins/hook"
)

// HostConfig configures a Host.
type HostConfig struct {
	// Catalog is the plugins directory; nil is none.
	Catalog *Catalog
	// Logger gets each plugin's stderr, one record per line, with
	// plugin=NAME, and the Host's own account of starts and deaths.
	Logger *slog.Logger
	// Callbacks is served to plugins through go-plugin's broker. Nil:
	// reconcilers' calls to specd answer 503 ServiceUnavailable.
	Callbacks hook.Callbacks
	// Events, when set, is where plugins' Events go instead of through
	// Callbacks: a host cluster's events API when specd serves
	// aggregated.
	Events events.Sink
}

// Host starts, supervises and calls the plugins of one directory. It is
// safe for concurrent use.
type Host struct {
	cfg      HostConfig
	logger   *slog.Logger
	closed   atomic.Bool
	hostname string // in each plugin's reportingInstance

	mu    sync.RWMutex
	procs map[string]*proc // made on first use; never removed
}

// NewHost returns the Host of the catalog's plugins. It starts none: a
// plugin starts on its first call.
func NewHost(cfg HostConfig) *Host {
	h := &Host{cfg: cfg, logger: cfg.Logger, procs: map[string]*proc{}}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if h.cfg.Catalog == nil {
		h.cfg.Catalog = &Catalog{paths: map[string]string{}}
	}
	h.hostname, _ = os.Hostname() // without it, an instance is named by the plugin alone
	for _, name := range h.Names() {
		h.lookup(name) // each plugin's metrics from the start
	}
	return h
}

// recorder records plugin's Events as client-go's recorder would for a
// controller of that name: reporting instance "NAME-HOSTNAME".
func (h *Host) recorder(plugin string) *events.Recorder {
	instance := plugin
	if h.hostname != "" {
		instance += "-" + h.hostname
	}
	var sink events.Sink = h.cfg.Callbacks
	if h.cfg.Events != nil {
		sink = h.cfg.Events
	}
	return events.NewRecorder(sink, plugin, instance)
}

// Names are the plugins of the catalog, sorted.
func (h *Host) Names() []string { return h.cfg.Catalog.Names() }

// Kinds is what the plugin says it handles, starting it if need be.
func (h *Host) Kinds(ctx context.Context, plugin string) ([]hook.KindHooks, error) {
	p, err := h.proc(plugin)
	if err != nil {
		return nil, err
	}
	inst, _, err := p.get(ctx)
	if err != nil {
		return nil, &CallError{Plugin: plugin, Err: err}
	}
	return append([]hook.KindHooks(nil), inst.kinds...), nil
}

// Health is the state of every plugin, sorted by name.
func (h *Host) Health() []PluginHealth {
	names := h.Names()
	out := make([]PluginHealth, 0, len(names))
	for _, name := range names {
		p, _ := h.lookup(name)
		out = append(out, p.health())
	}
	return out
}

// lookup returns the plugin name of the catalog, made on its first
// lookup.
func (h *Host) lookup(name string) (*proc, bool) {
	h.mu.RLock()
	p, ok := h.procs[name]
	h.mu.RUnlock()
	if ok {
		return p, true
	}
	path, ok := h.cfg.Catalog.path(name)
	if !ok {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.procs[name]; ok {
		return p, true
	}
	p = &proc{h: h, name: name, path: path, state: stateIdle, events: h.recorder(name)}
	h.procs[name] = p
	pluginUp.WithLabelValues(name).Set(0)
	return p, true
}

// Close kills every plugin process; later calls fail with ErrClosed. It is
// safe to call more than once.
func (h *Host) Close() {
	if h.closed.Swap(true) {
		return
	}
	h.mu.RLock()
	procs := make([]*proc, 0, len(h.procs))
	for _, p := range h.procs {
		procs = append(procs, p)
	}
	h.mu.RUnlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		if inst := p.shutdown(); inst != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				inst.kill()
				<-inst.killed
			}()
		}
	}
	wg.Wait()
}

func (h *Host) proc(name string) (*proc, error) {
	if h.closed.Load() {
		return nil, &CallError{Plugin: name, Err: ErrClosed}
	}
	p, ok := h.lookup(name)
	if !ok {
		return nil, &CallError{Plugin: name, Err: fmt.Errorf("%w: %s", ErrNotFound, h.cfg.Catalog.missing())}
	}
	return p, nil
}

// The engine's writes call the Host for admission, the controllers for
// reconciles.
var (
	_ hook.Admission  = (*Host)(nil)
	_ hook.Reconciler = (*Host)(nil)
)
