package rbac

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/specd-io/specd/schemas"
)

// Config configures an Authorizer.
type Config struct {
	// Registry returns the current registry snapshot, in which the RBAC
	// resources are looked up (group rbac.authorization.k8s.io, v1).
	Registry func() *schemas.Registry
	Logger   *slog.Logger
}

// Authorizer decides requests by RBAC from its in-memory indexes, which
// Run keeps up to date.
type Authorizer struct {
	cfg    Config
	log    *slog.Logger
	ix     *index
	synced [kinds]atomic.Bool
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns an Authorizer that knows no role until Run has listed them.
func New(cfg Config) *Authorizer {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Authorizer{cfg: cfg, log: cfg.Logger.With("component", "rbac"), ix: newIndex()}
}

// Authorize allows a request that a rule bound to its user grants, and
// every request of a member of system:masters; it has no opinion on any
// other (kube's RBAC authorizer never denies).
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	u := attrs.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if isMaster(u) {
		return authorizer.DecisionAllow, "", nil
	}
	var errs []error
	var reason string
	a.ix.visit(u, attrs.GetNamespace(), func(src source, rules []rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		for i := range rules {
			if ruleAllows(attrs, &rules[i]) {
				reason = "RBAC: allowed by " + src.describe(u)
				return false
			}
		}
		return true
	})
	if reason != "" {
		return authorizer.DecisionAllow, reason, nil
	}
	if len(errs) > 0 {
		reason = fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs))
	}
	return authorizer.DecisionNoOpinion, reason, nil
}

// ConditionsAwareAuthorize is Authorize: RBAC has no conditions.
func (a *Authorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// EvaluateConditions refuses: RBAC makes no conditional decision.
func (a *Authorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor lists the rules bound to u in namespace (and cluster-wide),
// as SelfSubjectRulesReview shows them. A role a binding names that does
// not exist is an error; the rules found are still returned.
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var res []authorizer.ResourceRuleInfo
	var non []authorizer.NonResourceRuleInfo
	rules, err := a.rulesFor(u, namespace)
	for _, r := range rules {
		if len(r.Resources) > 0 {
			res = append(res, &authorizer.DefaultResourceRuleInfo{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			non = append(non, &authorizer.DefaultNonResourceRuleInfo{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	return res, non, false, err
}

// rulesFor returns every rule bound to u in namespace and cluster-wide,
// each binding once.
func (a *Authorizer) rulesFor(u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var out []rbacv1.PolicyRule
	var errs []error
	seen := map[any]bool{}
	a.ix.visit(u, namespace, func(src source, rules []rbacv1.PolicyRule, err error) bool {
		switch {
		case err != nil:
			errs = append(errs, err)
		case !seen[src.binding()]:
			seen[src.binding()] = true
			out = append(out, rules...)
		}
		return true
	})
	return out, utilerrors.NewAggregate(errs)
}

// isMaster reports whether u is in system:masters, which may do anything.
func isMaster(u user.Info) bool {
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return true
		}
	}
	return false
}

// roleRefRules returns the rules of the role a binding in namespace ns
// ("" for a ClusterRoleBinding) names; the caller holds the read lock.
func (ix *index) roleRefRules(ref rbacv1.RoleRef, ns string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if r := ix.roles[nsName{ns, ref.Name}]; r != nil {
			return r.Rules, nil
		}
		return nil, apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name)
	case "ClusterRole":
		if r := ix.clusterRoles[ref.Name]; r != nil {
			return r.Rules, nil
		}
		return nil, apierrors.NewNotFound(rbacv1.Resource("clusterrole"), ref.Name)
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
}
