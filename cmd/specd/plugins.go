package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

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
// client reconcilers call back through, set once the store exists.
type pluginSet struct {
	host   *plugins.Host
	dir    string
	log    *slog.Logger
	client atomic.Pointer[controller.Client]
}

// openPlugins finds the plugins of --plugins; it starts none.
func openPlugins(cfg serveConfig, log *slog.Logger) (*pluginSet, error) {
	p := &pluginSet{dir: cfg.Plugins, log: log}
	host, err := plugins.NewHost(plugins.HostConfig{Dir: cfg.Plugins, Logger: log.With("component", "plugins"), Callbacks: callbacks{p}})
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
			if !res.Served() {
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

// admission is the engine's Admission on the host.
func (p *pluginSet) admission() engine.Admission { return admission{p.host} }

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
	p.client.Store(controller.NewClient(store, registry))
	m := controller.NewManager(controller.ManagerConfig{Store: store, Reconciler: reconciler{p.host}, Workers: cfg.ReconcileWorkers,
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

// admission adapts the plugin host to engine.Admission.
type admission struct{ host *plugins.Host }

func admissionRequest(r engine.AdmissionRequest) plugins.AdmissionRequest {
	return plugins.AdmissionRequest{
		Group: r.Group, Version: r.Version, Kind: r.Kind, Resource: r.Resource,
		Namespace: r.Namespace, Name: r.Name, Operation: r.Operation, Subresource: r.Subresource,
		Object: r.Object, OldObject: r.OldObject, DryRun: r.DryRun,
	}
}

func (a admission) Default(ctx context.Context, plugin string, req engine.AdmissionRequest) ([]byte, error) {
	return a.host.Default(ctx, plugin, admissionRequest(req))
}

func (a admission) Validate(ctx context.Context, plugin string, req engine.AdmissionRequest) ([]engine.FieldError, error) {
	fes, err := a.host.Validate(ctx, plugin, admissionRequest(req))
	out := make([]engine.FieldError, len(fes))
	for i, fe := range fes {
		out[i] = engine.FieldError(fe)
	}
	return out, err
}

// reconciler adapts the plugin host to controller.Reconciler.
type reconciler struct{ host *plugins.Host }

func (r reconciler) Reconcile(ctx context.Context, plugin string, req controller.Request) (controller.Result, error) {
	res, err := r.host.Reconcile(ctx, plugin, plugins.ReconcileRequest(req))
	return controller.Result(res), err
}

func (r reconciler) Kinds(ctx context.Context, plugin string) ([]controller.KindHooks, error) {
	kinds, err := r.host.Kinds(ctx, plugin)
	out := make([]controller.KindHooks, len(kinds))
	for i, k := range kinds {
		out[i] = controller.KindHooks(k)
	}
	return out, err
}

// callbacks is plugins.Callbacks on the pluginSet's client.
type callbacks struct{ p *pluginSet }

var _ plugins.Callbacks = callbacks{}

// errNotServing answers a reconciler's call before the store exists.
var errNotServing = errors.New("specd is not serving yet")

func (c callbacks) client() (*controller.Client, error) {
	if cl := c.p.client.Load(); cl != nil {
		return cl, nil
	}
	return nil, errNotServing
}

func (c callbacks) Get(ctx context.Context, r plugins.ResourceRef, namespace, name string) ([]byte, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return cl.Get(ctx, controller.ResourceRef(r), namespace, name)
}

func (c callbacks) List(ctx context.Context, r plugins.ResourceRef, namespace, labelSelector string) ([]byte, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return cl.List(ctx, controller.ResourceRef(r), namespace, labelSelector)
}

func (c callbacks) Create(ctx context.Context, r plugins.ResourceRef, namespace string, obj []byte) ([]byte, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return cl.Create(ctx, controller.ResourceRef(r), namespace, obj)
}

func (c callbacks) Update(ctx context.Context, r plugins.ResourceRef, namespace, name string, obj []byte) ([]byte, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return cl.Update(ctx, controller.ResourceRef(r), namespace, name, obj)
}

func (c callbacks) UpdateStatus(ctx context.Context, r plugins.ResourceRef, namespace, name string, obj []byte) ([]byte, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return cl.UpdateStatus(ctx, controller.ResourceRef(r), namespace, name, obj)
}

func (c callbacks) Patch(ctx context.Context, r plugins.ResourceRef, namespace, name, patchType string, patch []byte, subresource string) ([]byte, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return cl.Patch(ctx, controller.ResourceRef(r), namespace, name, patchType, patch, subresource)
}

func (c callbacks) Delete(ctx context.Context, r plugins.ResourceRef, namespace, name, propagationPolicy string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	return cl.Delete(ctx, controller.ResourceRef(r), namespace, name, propagationPolicy)
}
