package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server"
)

// leaderKey is the etcd key prefix of the election of the replica that
// runs the controllers; outside the objects' prefix.
const leaderKey = "/specd-leader/controllers"

// pluginSet is specd serve's plugins: the host that runs them, and the
// callbacks it serves reconcilers, bound once the store exists.
type pluginSet struct {
	host      *plugins.Host
	dir       string
	log       *slog.Logger
	callbacks *plugins.LateCallbacks
}

// openPlugins finds the plugins of --plugins; it starts none.
func openPlugins(cfg serveConfig, log *slog.Logger) (*pluginSet, error) {
	p := &pluginSet{dir: cfg.Plugins, log: log, callbacks: &plugins.LateCallbacks{}}
	host, err := plugins.NewHost(plugins.HostConfig{Dir: cfg.Plugins, Logger: log.With("component", "plugins"), Callbacks: p.callbacks})
	if err != nil {
		return nil, fmt.Errorf("--plugins: %w", err)
	}
	p.host = host
	return p, nil
}

// Close kills the plugin processes.
func (p *pluginSet) Close() { p.host.Close() }

// checkBindings refuses a registry whose x-specd-hooks name a plugin that
// is not in --plugins, naming the file and pointer of each binding, as a
// broken schema is refused. Only what can run is checked: the defaulting
// bindings of served versions, and the validate and reconcile bindings of
// the storage version of a resource that is served.
func (p *pluginSet) checkBindings(reg *schemas.Registry) error {
	// A plugin dropped into the directory with the schema that binds it
	// serves without a restart.
	added, err := p.host.Rescan()
	if err != nil {
		return fmt.Errorf("--plugins: %w", err)
	}
	if len(added) > 0 {
		p.log.Info("new plugins in the plugins directory", "dir", p.dir, "plugins", added)
	}
	var problems []schemas.Problem
	for _, b := range activeBindings(reg) {
		if p.host.Has(b.Plugin) {
			continue
		}
		where := "no --plugins directory was given"
		if p.dir != "" {
			where = "the plugins directory " + p.dir + " has no executable of that name"
		}
		problems = append(problems, schemas.Problem{File: b.file, Pointer: b.Pointer,
			Message: fmt.Sprintf("%s plugin %q: %s", b.Hook, b.Plugin, where)})
	}
	if len(problems) > 0 {
		return &schemas.LoadError{Problems: problems}
	}
	return nil
}

type binding struct {
	schemas.HookBinding
	file string
}

// activeBindings are the bindings of reg that serving may call.
func activeBindings(reg *schemas.Registry) []binding {
	var out []binding
	for _, g := range reg.Groups() {
		for _, res := range g.Resources {
			if !served(res) {
				continue
			}
			for _, rv := range res.Versions {
				if rv.Hooks == nil {
					continue
				}
				for _, b := range rv.Hooks.Plugins() {
					if (b.Hook == "default" && rv.Served()) || (b.Hook != "default" && rv.Storage) {
						out = append(out, binding{b, rv.Hooks.File})
					}
				}
			}
		}
	}
	return out
}

// readyChecks are one informational /readyz line per plugin known now
// (the directory is read again at each schema reload): a plugin that is
// down does not make specd unready (kube-apiserver stays ready while an
// admission webhook is down); its failure policy answers.
func (p *pluginSet) readyChecks() []server.Check {
	var checks []server.Check
	for _, name := range p.host.Names() {
		checks = append(checks, server.Check{Name: "plugin/" + name, Informational: true, Check: func() error {
			for _, h := range p.host.Health() {
				if h.Name == name {
					return healthError(h)
				}
			}
			return nil
		}})
	}
	return checks
}

// healthError says what is wrong with a plugin, nil when nothing is: a
// plugin not started yet is fine (plugins start on first use).
func healthError(h plugins.PluginHealth) error {
	switch h.State {
	case "restarting", "failed":
		return fmt.Errorf("%s after %d restarts: %s", h.State, h.Restarts, h.LastError)
	}
	return nil
}

// startControllers runs a controller per resource bound to a reconcile
// plugin, in the one replica elected among those on the same etcd, until
// the returned stop is called: it waits for them to stop, and resigns.
// The replicas campaign once such a resource has an object; the
// controllers follow schema reloads.
func (p *pluginSet) startControllers(ctx context.Context, cfg serveConfig, client *clientv3.Client, store *engine.Store,
	registry func() *schemas.Registry, log *slog.Logger) (stop func()) {
	m := controller.NewManager(controller.ManagerConfig{Store: store, Reconciler: p.host, Workers: cfg.ReconcileWorkers,
		Logger: log.With("component", "controllers")})
	host, _ := os.Hostname()
	id := host + "/" + cfg.Listen + "/" + strconv.Itoa(os.Getpid())
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		// Campaigning writes to etcd; a specd with nothing to reconcile
		// leaves it alone.
		controller.AwaitWork(ctx, store, registry)
		controller.RunElected(ctx, controller.ElectionConfig{Client: client, Key: leaderKey, ID: id, Logger: log},
			func(ctx context.Context) { m.Follow(ctx, registry) })
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
