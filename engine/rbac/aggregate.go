package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/schemas"
)

// Aggregator fills the rules of every ClusterRole that has an
// aggregationRule with the rules of the ClusterRoles its selectors
// match, as kube's clusterrole aggregation controller does. It reads
// the Authorizer's indexes, so the Authorizer must Run too.
type Aggregator struct {
	Authorizer *Authorizer
	Objects    engine.Writer
	Registry   func() *schemas.Registry
	Logger     *slog.Logger
}

// Run aggregates as it starts and whenever a ClusterRole changes, until
// ctx ends. specd runs it in the elected replica only, so it starts with
// a pass: a new leader takes up what changed before it led. Several
// replicas may run it at once: each writes the same rules. Its passes
// are paced (background.Pacer): a change after a quiet spell is aggregated after
// aggregateDelay, the changes of a burst (CRDs created one after
// another) together, at most once per burstGap and as often as the cost
// of a pass allows.
func (g *Aggregator) Run(ctx context.Context) {
	log := g.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx = WithInternalUser(ctx)
	pace := background.Pacer{First: aggregateDelay, Gap: burstGap}
	g.Authorizer.ix.notify()
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.Authorizer.ix.changed:
		}
		pace.Wait(ctx)
		g.takeNotice()
		if !g.Authorizer.synced[clusterRoles].Load() {
			continue // a list under way: its end notifies again
		}
		start := time.Now()
		if err := g.aggregate(ctx); err == nil {
			pace.Done(start, time.Now())
		} else if ctx.Err() == nil {
			log.Warn("clusterrole aggregation failed; retrying at the next change", "err", err)
			g.Authorizer.ix.notify()
			background.Sleep(ctx, informer.DefaultRetryDelay)
		}
	}
}

// aggregateDelay is how long a pass waits after a change for the
// changes that come with it: a schema reload writes the view and the
// edit schema roles one after the other, and a pass after each rewrote
// edit and admin, which list every resource of the schemas, twice per
// CRD.
const aggregateDelay = 50 * time.Millisecond

// burstGap is the least time between two passes of the Aggregator, and
// between two writes of the schema roles (PolicyWriter), during a burst
// of changes. Each writes roles that list every resource of the schemas,
// and every write of them stays in etcd until its next compaction, and in
// its memory until its next snapshot: paced by their cost alone, they
// were most of the bytes etcd kept of a burst of CRDs. A change after a
// quiet second is still taken up at once.
const burstGap = time.Second

// takeNotice takes the notice of the changes made while the pass waited,
// which the pass that follows reads.
func (g *Aggregator) takeNotice() {
	select {
	case <-g.Authorizer.ix.changed:
	default:
	}
}

// Settle aggregates until every aggregated ClusterRole has the rules its
// selectors gather, also through chains (admin gathers edit, itself
// aggregated), so that specd starts with its policy complete rather than
// still writing it. The Authorizer's indexes must hold every ClusterRole
// (Synced); they see each write a moment after it, and writing rules a
// role already has stores nothing.
func (g *Aggregator) Settle(ctx context.Context) error {
	ctx = WithInternalUser(ctx)
	for len(g.Authorizer.ix.aggregations()) > 0 {
		if err := g.aggregate(ctx); err != nil {
			return err
		}
		background.Sleep(ctx, settlePause)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// settlePause is how long Settle lets the indexes catch up with a pass.
const settlePause = 10 * time.Millisecond

// aggregate writes the rules of each aggregated ClusterRole that are not
// yet what its selectors gather. It writes the role it read with its new
// rules, on condition that it is still the stored one: a merge patch of
// the rules decoded and merged the whole role again, and these list every
// resource of the schemas. A role changed since is left to the pass its
// change brings.
func (g *Aggregator) aggregate(ctx context.Context) error {
	rv := clusterRoleResource(g.Registry())
	if rv == nil {
		return fmt.Errorf("%s.%s is not served", plurals[clusterRoles], Group)
	}
	for name, agg := range g.Authorizer.ix.aggregations() {
		next := *agg.from
		next.Rules = agg.rules
		body, err := json.Marshal(&next)
		if err != nil {
			return fmt.Errorf("encode clusterrole %q: %w", name, err)
		}
		_, err = g.Objects.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: name}, Body: body,
			Options: engine.WriteOptions{FieldManager: "clusterrole-aggregation-controller"}})
		if err != nil && !apierrors.IsConflict(err) {
			return fmt.Errorf("update rules of clusterrole %q: %w", name, err)
		}
	}
	return nil
}

// aggregation is the rules an aggregated ClusterRole is to have, and the
// role as they were gathered for it.
type aggregation struct {
	from  *rbacv1.ClusterRole
	rules []rbacv1.PolicyRule
}

// aggregations returns the rules each aggregated ClusterRole should have,
// for those that have other rules now. A role that aggregates another
// aggregated role (admin gathers edit, which gathers view) gathers the
// rules that one is to have, not those it has now, so that one pass
// writes each role once: writing them a link of the chain per pass, as
// kube's controller does, rewrote edit and admin, which list every
// resource of the schemas, several times per CRD. The end is the same.
func (ix *index) aggregations() map[string]aggregation {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var aggregated []*rbacv1.ClusterRole
	for _, cr := range ix.clusterRoles {
		if cr.AggregationRule != nil {
			aggregated = append(aggregated, cr)
		}
	}
	next := map[string][]rbacv1.PolicyRule{}
	rulesOf := func(cr *rbacv1.ClusterRole) []rbacv1.PolicyRule {
		if rules, ok := next[cr.Name]; ok {
			return rules
		}
		return cr.Rules
	}
	// A chain of k aggregated roles settles in k passes; roles that
	// aggregate each other in a cycle stop there too, with what they
	// gathered so far.
	for range len(aggregated) + 1 {
		changed := false
		for _, cr := range aggregated {
			if rules := ix.gather(cr, rulesOf); !rulesEqual(rules, rulesOf(cr)) {
				next[cr.Name], changed = rules, true
			}
		}
		if !changed {
			break
		}
	}
	out := map[string]aggregation{}
	for _, cr := range aggregated {
		if rules, ok := next[cr.Name]; ok && !rulesEqual(rules, cr.Rules) {
			out[cr.Name] = aggregation{from: cr, rules: rules}
		}
	}
	return out
}

// gather returns the union of the rules (rulesOf) of the ClusterRoles
// cr's selectors match, other than cr, taken in name order without
// repeats.
func (ix *index) gather(cr *rbacv1.ClusterRole, rulesOf func(*rbacv1.ClusterRole) []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var matched []*rbacv1.ClusterRole
	for _, sel := range cr.AggregationRule.ClusterRoleSelectors {
		s, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil {
			continue
		}
		for _, other := range ix.clusterRoles {
			if other != cr && s.Matches(labels.Set(other.Labels)) && !slices.Contains(matched, other) {
				matched = append(matched, other)
			}
		}
	}
	slices.SortFunc(matched, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	rules, seen := []rbacv1.PolicyRule{}, ruleSet{}
	for _, m := range matched {
		rules = seen.addMissing(rules, rulesOf(m))
	}
	return rules
}
