package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/plugins/identity"
	"github.com/specd-io/specd/schemas"
)

// The values of --authorization-mode, as kube-apiserver names them.
const (
	modeRBAC        = "RBAC"
	modeAlwaysAllow = "AlwaysAllow"
)

// policyTimeout bounds one write of the RBAC policy.
const policyTimeout = 30 * time.Second

// authorizationMode is --authorization-mode.
type authorizationMode string

func (m *authorizationMode) register(fs *flag.FlagSet) {
	*m = modeRBAC
	fs.Func("authorization-mode", "RBAC (the default) or AlwaysAllow (development only: every authenticated request is allowed)", func(v string) error {
		if v != modeRBAC && v != modeAlwaysAllow {
			return fmt.Errorf("want %s or %s", modeRBAC, modeAlwaysAllow)
		}
		*m = authorizationMode(v)
		return nil
	})
}

// authorization is how requests are authorized: RBAC, from the RBAC
// objects specd stores, or AlwaysAllow. The RBAC indexes are kept in both
// modes, since the review APIs list a user's rules from them.
type authorization struct {
	mode authorizationMode
	rbac *rbac.Authorizer
}

func newAuthorization(mode authorizationMode, registry func() *schemas.Registry, log *slog.Logger) *authorization {
	return &authorization{mode: mode, rbac: rbac.New(rbac.Config{Registry: registry, Logger: log})}
}

// authorizer decides requests in the chosen mode.
func (a *authorization) authorizer() authorizer.Authorizer {
	if a.mode == modeAlwaysAllow {
		return authorizerfactory.NewAlwaysAllowAuthorizer()
	}
	return a.rbac
}

// writeChecks are the engine's checks of RBAC writes: kube's escalation
// prevention, which AlwaysAllow (everyone may escalate) leaves out.
func (a *authorization) writeChecks() map[string]engine.WriteCheck {
	if a.mode == modeAlwaysAllow {
		return nil
	}
	return a.rbac.WriteChecks()
}

// ready is the /readyz check: RBAC denies what its indexes do not know yet.
func (a *authorization) ready() error {
	if !a.rbac.Synced() {
		return fmt.Errorf("the RBAC objects are not all loaded yet")
	}
	return nil
}

// start keeps the RBAC indexes up to date until stop is called. It
// returns once the indexes hold every RBAC object and the aggregated
// roles are written, so that specd is ready with its policy complete
// rather than still writing it. aggregator keeps the aggregated roles up
// to date afterwards: kube's clusterrole aggregation controller, which
// specd runs in the elected replica (backgroundJobs).
func (a *authorization) start(ctx context.Context, store *engine.Store, registry func() *schemas.Registry, log *slog.Logger) (stop func(), aggregator background.Job, err error) {
	agg := &rbac.Aggregator{Authorizer: a.rbac, Objects: store, Registry: registry, Logger: log}
	stop = background.New(background.JobFunc(func(ctx context.Context) { a.rbac.Run(ctx, store) })).Start(ctx)
	ctx, cancel := context.WithTimeout(ctx, policyTimeout)
	defer cancel()
	for !a.rbac.Synced() {
		select {
		case <-ctx.Done():
			stop()
			return nil, nil, fmt.Errorf("load the RBAC objects: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := agg.Settle(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("aggregate the ClusterRoles: %w", err)
	}
	return stop, agg, nil
}

// policyWriter writes the RBAC policy that follows from the schemas: the
// default roles once, and, at start and after each reload, the roles that
// give view/edit/admin the schemas' resources and each plugin its own.
//
// Every replica writes it, not only the elected one, as every
// kube-apiserver runs its rbac/bootstrap-roles hook. Two replicas with
// different schema files (a rollout) do not fight: each writes only when
// it starts or reloads, never in a loop, each object with a conditional
// update (rbac.Reconcile), so the roles are those of the last replica to
// start or reload, and a rollout ends on the new files. Meanwhile a
// replica on the old files that restarts after a new one takes the new
// resources out of view/edit until the next new replica starts: access
// is denied for a while, never granted beyond what a replica's own files
// grant. Leader-only would be worse: a new replica would report ready
// with its new resources in no role until the election moved to a replica
// on the new files.
type policyWriter struct {
	objects rbac.Objects
	log     *slog.Logger
}

// start writes the whole policy; specd does not serve without it.
func (p policyWriter) start(ctx context.Context, reg *schemas.Registry) error {
	return p.write(ctx, reg, append([]rbac.Policy{rbac.DefaultPolicy()}, followingPolicies(reg)...))
}

// BeforeSwap implements serving.Follower.
func (p policyWriter) BeforeSwap(context.Context, *schemas.Registry, *schemas.Registry) error {
	return nil
}

// AfterSwap implements serving.Follower: the schema and plugin roles
// follow the reload. A failure is logged; the next reload or start tries
// again.
func (p policyWriter) AfterSwap(ctx context.Context, _, next *schemas.Registry) {
	if err := p.write(ctx, next, followingPolicies(next)); err != nil {
		p.log.Error("write the RBAC policy after a schema reload", "err", err)
	}
}

// followingPolicies are the parts of the policy that follow the schemas.
func followingPolicies(reg *schemas.Registry) []rbac.Policy {
	return []rbac.Policy{rbac.SchemaPolicy(reg), pluginPolicy(reg)}
}

// write reconciles each of policies, within policyTimeout.
func (p policyWriter) write(ctx context.Context, reg *schemas.Registry, policies []rbac.Policy) error {
	ctx, cancel := context.WithTimeout(ctx, policyTimeout)
	defer cancel()
	for _, pol := range policies {
		if err := rbac.Reconcile(ctx, p.objects, reg, pol); err != nil {
			return fmt.Errorf("write the RBAC policy: %w", err)
		}
	}
	return nil
}

// pluginPolicy is identity.PluginPolicy as an rbac.Policy: each plugin's
// role follows its bindings exactly.
func pluginPolicy(reg *schemas.Registry) rbac.Policy {
	roles, bindings := identity.PluginPolicy(reg)
	p := rbac.Policy{Exact: true}
	for i := range roles {
		p.ClusterRoles = append(p.ClusterRoles, &roles[i])
	}
	for i := range bindings {
		p.ClusterRoleBindings = append(p.ClusterRoleBindings, &bindings[i])
	}
	return p
}
