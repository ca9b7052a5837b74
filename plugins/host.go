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
	Callbacks Callbacks
}

// Host starts, supervises and calls the plugins of one directory. It is
// safe for concurrent use.
type Host struct {
	cfg    HostConfig
	logger *slog.Logger
	procs  map[string]*proc // fixed by NewHost
	closed atomic.Bool
}

// NewHost finds the plugins in cfg.Dir. It starts none: a plugin starts on
// its first call.
func NewHost(cfg HostConfig) (*Host, error) {
	h := &Host{cfg: cfg, logger: cfg.Logger, procs: map[string]*proc{}}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Dir == "" {
		return h, nil
	}
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("plugins: read plugin directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(cfg.Dir, name)
		if strings.HasPrefix(name, ".") || !isExecutable(path) {
			continue
		}
		h.procs[name] = &proc{h: h, name: name, path: path, state: stateIdle}
		pluginUp.WithLabelValues(name).Set(0)
	}
	return h, nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path) // follows a symlink to the executable
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// Has reports whether the directory has a plugin of that name.
func (h *Host) Has(name string) bool {
	_, ok := h.procs[name]
	return ok
}

// Names are the plugins of the directory, sorted.
func (h *Host) Names() []string {
	names := make([]string, 0, len(h.procs))
	for name := range h.procs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Kinds is what the plugin says it handles, starting it if need be.
func (h *Host) Kinds(ctx context.Context, plugin string) ([]KindHooks, error) {
	p, err := h.proc(plugin)
	if err != nil {
		return nil, err
	}
	inst, err := p.get(ctx)
	if err != nil {
		return nil, &CallError{Plugin: plugin, Err: err}
	}
	return append([]KindHooks(nil), inst.kinds...), nil
}

// Health is the state of every plugin, sorted by name.
func (h *Host) Health() []PluginHealth {
	out := make([]PluginHealth, 0, len(h.procs))
	for _, name := range h.Names() {
		out = append(out, h.procs[name].health())
	}
	return out
}

// Close kills every plugin process; later calls fail with ErrClosed. It is
// safe to call more than once.
func (h *Host) Close() {
	if h.closed.Swap(true) {
		return
	}
	var wg sync.WaitGroup
	for _, p := range h.procs {
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
	p, ok := h.procs[name]
	if !ok {
		return nil, &CallError{Plugin: name, Err: fmt.Errorf("%w in %q", ErrNotFound, h.cfg.Dir)}
	}
	return p, nil
}
