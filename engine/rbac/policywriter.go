package rbac

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/plugins/identity"
	"github.com/specd-io/specd/schemas"
)

// PolicyWriter writes the policies specd keeps in step with its schemas:
// kube's default policy at start, and at start and after every reload the
// roles and bindings of the plugins (their identities', plugins/identity)
// and the roles of the schemas' resources (SchemaPolicy). It follows
// reloads as a serving.Follower. The schema roles list every resource of
// the schemas, so Run writes them apart from the reload, paced as the
// Aggregator is (background.Pacer): at once after a quiet spell, and during a burst
// of reloads (CRDs created one after another) for the last one, at most
// once per burstGap and as often as their cost allows.
type PolicyWriter struct {
	objects engine.ReadWriter
	log     *slog.Logger
	// next is the registry of the last reload, whose schema roles Run
	// writes when changed tells it.
	next    atomic.Pointer[schemas.Registry]
	changed chan struct{}
}

// NewPolicyWriter returns a PolicyWriter writing to objects.
func NewPolicyWriter(objects engine.ReadWriter, log *slog.Logger) *PolicyWriter {
	return &PolicyWriter{objects: objects, log: log, changed: make(chan struct{}, 1)}
}

// Start writes the default policy and the policies of reg.
func (p *PolicyWriter) Start(ctx context.Context, reg *schemas.Registry) error {
	return p.write(ctx, reg, DefaultPolicy(), SchemaPolicy(reg), pluginPolicy(reg))
}

// BeforeSwap is serving.Follower's; the policies follow a swap, never
// refuse one.
func (p *PolicyWriter) BeforeSwap(context.Context, *schemas.Registry, *schemas.Registry) error {
	return nil
}

// AfterSwap writes the plugins' policy of next, so that a plugin it binds
// may act as soon as it is served, and leaves the schema roles to Run. A
// failure is logged, and the next reload writes the policy again.
func (p *PolicyWriter) AfterSwap(ctx context.Context, _, next *schemas.Registry) {
	p.next.Store(next)
	p.notify()
	if err := p.write(ctx, next, pluginPolicy(next)); err != nil {
		p.log.Error("write the RBAC policy after a schema reload", "err", err)
	}
}

// Run writes the schema roles of the last reload after each reload,
// paced, until ctx ends; a failure is retried.
func (p *PolicyWriter) Run(ctx context.Context) {
	pace := background.Pacer{Gap: burstGap}
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.changed:
		}
		pace.Wait(ctx)
		reg := p.next.Load()
		start := time.Now()
		if err := p.write(ctx, reg, SchemaPolicy(reg)); err == nil {
			pace.Done(start, time.Now())
		} else if ctx.Err() == nil {
			p.log.Warn("writing the schema roles failed; retrying", "err", err)
			p.retry(ctx)
		}
	}
}

// retry asks Run for another pass after informer.DefaultRetryDelay.
func (p *PolicyWriter) retry(ctx context.Context) {
	background.Sleep(ctx, informer.DefaultRetryDelay)
	p.notify()
}

// notify tells Run, without blocking, that it has schema roles to write.
func (p *PolicyWriter) notify() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *PolicyWriter) write(ctx context.Context, reg *schemas.Registry, policies ...Policy) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for _, pol := range policies {
		if err := Reconcile(ctx, p.objects, reg, pol); err != nil {
			return fmt.Errorf("write the RBAC policy: %w", err)
		}
	}
	return nil
}

// pluginPolicy is exactly the roles and bindings of the plugins reg binds:
// a plugin no longer bound loses its binding.
func pluginPolicy(reg *schemas.Registry) Policy {
	roles, bindings := identity.PluginPolicy(reg)
	p := Policy{Exact: true}
	for i := range roles {
		p.ClusterRoles = append(p.ClusterRoles, &roles[i])
	}
	for i := range bindings {
		p.ClusterRoleBindings = append(p.ClusterRoleBindings, &bindings[i])
	}
	return p
}
