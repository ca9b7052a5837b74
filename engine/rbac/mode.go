package rbac

import (
	"fmt"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"

	"github.com/specd-io/specd/engine"
)

// Mode is --authorization-mode, named as kube-apiserver names it.
type Mode string

// The modes: RBAC, from the RBAC objects specd stores, or AlwaysAllow,
// for development, where every authenticated request is allowed.
const (
	ModeRBAC        Mode = "RBAC"
	ModeAlwaysAllow Mode = "AlwaysAllow"
)

// Set is the flag's parser.
func (m *Mode) Set(v string) error {
	if Mode(v) != ModeRBAC && Mode(v) != ModeAlwaysAllow {
		return fmt.Errorf("want %s or %s", ModeRBAC, ModeAlwaysAllow)
	}
	*m = Mode(v)
	return nil
}

// Authorization is how requests are authorized, in a Mode. The RBAC
// indexes are kept in both modes, since the review APIs list a user's
// rules from them.
type Authorization struct {
	Mode Mode
	RBAC *Authorizer
}

// Authorizer decides requests in the chosen mode.
func (a *Authorization) Authorizer() authorizer.Authorizer {
	if a.Mode == ModeAlwaysAllow {
		return authorizerfactory.NewAlwaysAllowAuthorizer()
	}
	return a.RBAC
}

// WriteChecks are the engine's checks of RBAC writes: kube's escalation
// prevention, which AlwaysAllow (everyone may escalate) leaves out.
func (a *Authorization) WriteChecks() map[string]engine.WriteCheck {
	if a.Mode == ModeAlwaysAllow {
		return nil
	}
	return a.RBAC.WriteChecks()
}

// Ready is the /readyz check: RBAC denies what its indexes do not know
// yet.
func (a *Authorization) Ready() error {
	if !a.RBAC.Synced() {
		return fmt.Errorf("the RBAC objects are not all loaded yet")
	}
	return nil
}
