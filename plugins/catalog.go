package plugins

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Catalog is what the plugins directory holds: each executable file in
// it whose name does not start with a dot is a plugin, named by its file
// name. It answers what serving asks of the directory before any plugin
// runs (CheckBindings), and tells the Host where each plugin is.
type Catalog struct {
	dir string
	log *slog.Logger

	mu    sync.RWMutex
	paths map[string]string // found by OpenCatalog and Rescan; never removed
}

// OpenCatalog reads dir, the plugins directory (--plugins); empty dir is
// no plugins. log gets the plugins that appear later; none when nil.
func OpenCatalog(dir string, log *slog.Logger) (*Catalog, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Catalog{dir: dir, log: log, paths: map[string]string{}}
	if _, err := c.Rescan(); err != nil {
		return nil, err
	}
	return c, nil
}

// Rescan reads the plugins directory again and adds the plugins that
// appeared since, which start on their first call; it returns their
// names. A plugin whose file went away stays known (a running one keeps
// running) but Has no longer reports it, so that new hook bindings to it
// are refused; a replaced file is run the next time the plugin starts.
func (c *Catalog) Rescan() ([]string, error) {
	if c.dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("plugins: read plugin directory: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var added []string
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(c.dir, name)
		if _, known := c.paths[name]; known || strings.HasPrefix(name, ".") || !isExecutable(path) {
			continue
		}
		c.paths[name] = path
		added = append(added, name)
	}
	return added, nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path) // follows a symlink to the executable
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// path is where the plugin name is, as of OpenCatalog or the last Rescan.
func (c *Catalog) path(name string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.paths[name]
	return p, ok
}

// Has reports whether the directory has a plugin of that name, as of
// OpenCatalog or the last Rescan, whose executable is still there.
func (c *Catalog) Has(name string) bool {
	p, ok := c.path(name)
	return ok && isExecutable(p)
}

// Names are the plugins known, sorted.
func (c *Catalog) Names() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.paths))
	for name := range c.paths {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// missing says why the catalog lacks a plugin.
func (c *Catalog) missing() string {
	if c.dir == "" {
		return "no --plugins directory was given"
	}
	return "the plugins directory " + c.dir + " has no executable of that name"
}
