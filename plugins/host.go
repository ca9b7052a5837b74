package plugins

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/plugins/hook"
)

// HostConfig configures a Host.
type HostConfig struct {
	// Dir is the plugins directory (--plugins): each executable file in it
	// whose name does not start with a dot is a plugin, named by its file
	// name. Empty: no plugins.
	Dir string
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
	procs map[string]*proc // found by NewHost and Rescan; never removed
}

// NewHost finds the plugins in cfg.Dir. It starts none: a plugin starts on
// its first call.
func NewHost(cfg HostConfig) (*Host, error) {
	h := &Host{cfg: cfg, logger: cfg.Logger, procs: map[string]*proc{}}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	h.hostname, _ = os.Hostname() // without it, an instance is named by the plugin alone
	if _, err := h.Rescan(); err != nil {
		return nil, err
	}
	return h, nil
}

// Rescan reads the plugins directory again and adds the plugins that
// appeared since, which start on their first call; it returns their
// names. A plugin whose file went away stays known (a running one keeps
// running) but Has no longer reports it, so that new hook bindings to it
// are refused; a replaced file is run the next time the plugin starts.
func (h *Host) Rescan() ([]string, error) {
	if h.cfg.Dir == "" || h.closed.Load() {
		return nil, nil
	}
	entries, err := os.ReadDir(h.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("plugins: read plugin directory: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var added []string
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(h.cfg.Dir, name)
		if _, known := h.procs[name]; known || strings.HasPrefix(name, ".") || !isExecutable(path) {
			continue
		}
		h.procs[name] = &proc{h: h, name: name, path: path, state: stateIdle, events: h.recorder(name)}
		pluginUp.WithLabelValues(name).Set(0)
		added = append(added, name)
	}
	return added, nil
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

func isExecutable(path string) bool {
	fi, err := os.Stat(path) // follows a symlink to the executable
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// Has reports whether the directory has a plugin of that name, as of
// NewHost or the last Rescan, whose executable is still there.
func (h *Host) Has(name string) bool {
	h.mu.RLock()
	p, ok := h.procs[name]
	h.mu.RUnlock()
	return ok && isExecutable(p.path)
}

// Names are the plugins of the directory, sorted.
func (h *Host) Names() []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	names := make([]string, 0, len(h.procs))
	for name := range h.procs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Kinds is what the plugin says it handles, starting it if need be.
func (h *Host) Kinds(ctx context.Context, plugin string) ([]hook.KindHooks, error) {
	p, err := h.proc(plugin)
	if err != nil {
		return nil, err
	}
	inst, err := p.get(ctx)
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

func (h *Host) lookup(name string) (*proc, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	p, ok := h.procs[name]
	return p, ok
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
		return nil, &CallError{Plugin: name, Err: fmt.Errorf("%w in %q", ErrNotFound, h.cfg.Dir)}
	}
	return p, nil
}

// The engine's writes call the Host for admission, the controllers for
// reconciles.
var (
	_ hook.Admission  = (*Host)(nil)
	_ hook.Reconciler = (*Host)(nil)
)
