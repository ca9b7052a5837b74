package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/schemas"
)

// The values of --authorization-mode, as kube-apiserver names them.
const (
	modeRBAC        = "RBAC"
	modeAlwaysAllow = "AlwaysAllow"
)

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

// start loads the RBAC objects and aggregates the ClusterRoles
// (rbac.Authorizer.Start).
func (a *authorization) start(ctx context.Context, store engine.Objects, registry func() *schemas.Registry, log *slog.Logger) (stop func(), agg *rbac.Aggregator, err error) {
	return a.rbac.Start(ctx, store, registry, log)
}
