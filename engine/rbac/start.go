package rbac

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/plugins/identity"
	"github.com/specd-io/specd/schemas"
)

// startTimeout bounds each step of a start: loading the RBAC objects,
// aggregating the ClusterRoles, writing a policy.
const startTimeout = 30 * time.Second

// syncPoll is how often Start looks whether the indexes are loaded.
const syncPoll = 10 * time.Millisecond

// Start keeps the Authorizer's indexes up to date from store in the
// background (Run) until stop is called, and returns once they hold every
// RBAC object and the ClusterRoles with an aggregationRule are aggregated,
// so that specd answers no request it could not judge. The Aggregator it
// returns aggregates from then on, on the elected replica.
func (a *Authorizer) Start(ctx context.Context, store engine.Objects, registry func() *schemas.Registry, log *slog.Logger) (stop func(), agg *Aggregator, err error) {
	agg = &Aggregator{Authorizer: a, Objects: store, Registry: registry, Logger: log}
	stop = background.New(background.JobFunc(func(ctx context.Context) { a.Run(ctx, store) })).Start(ctx)
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for !a.Synced() {
		if background.Sleep(ctx, syncPoll); ctx.Err() != nil {
			stop()
			return nil, nil, fmt.Errorf("load the RBAC objects: %w", ctx.Err())
		}
	}
	if err := agg.Settle(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("aggregate the ClusterRoles: %w", err)
	}
	return stop, agg, nil
}

// PolicyWriter writes the policies specd keeps in step with its schemas:
// kube's default policy at start, and at start and after every reload the
// roles of the schemas' resources (SchemaPolicy) and of the plugins
// (their identities' roles and bindings, plugins/identity). It follows
// reloads as a serving.Follower.
type PolicyWriter struct {
	Objects engine.ReadWriter
	Logger  *slog.Logger
}

// Start writes the default policy and the policies of reg.
func (p PolicyWriter) Start(ctx context.Context, reg *schemas.Registry) error {
	return p.write(ctx, reg, append([]Policy{DefaultPolicy()}, followingPolicies(reg)...))
}

// BeforeSwap is serving.Follower's; the policies follow a swap, never
// refuse one.
func (p PolicyWriter) BeforeSwap(context.Context, *schemas.Registry, *schemas.Registry) error {
	return nil
}

// AfterSwap writes the policies of next; a failure is logged, and the
// next reload writes them again.
func (p PolicyWriter) AfterSwap(ctx context.Context, _, next *schemas.Registry) {
	if err := p.write(ctx, next, followingPolicies(next)); err != nil {
		p.Logger.Error("write the RBAC policy after a schema reload", "err", err)
	}
}

// followingPolicies are the policies that follow reg.
func followingPolicies(reg *schemas.Registry) []Policy {
	return []Policy{SchemaPolicy(reg), pluginPolicy(reg)}
}

func (p PolicyWriter) write(ctx context.Context, reg *schemas.Registry, policies []Policy) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for _, pol := range policies {
		if err := Reconcile(ctx, p.Objects, reg, pol); err != nil {
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
