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
	"k8s.io/apimachinery/pkg/api/equality"
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
// replicas may run it at once: each writes the same rules.
func (g *Aggregator) Run(ctx context.Context) {
	log := g.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx = WithInternalUser(ctx)
	g.Authorizer.ix.notify()
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.Authorizer.ix.changed:
		}
		if !g.Authorizer.synced[clusterRoles].Load() {
			continue // a list under way: its end notifies again
		}
		if err := g.aggregate(ctx); err != nil && ctx.Err() == nil {
			log.Warn("clusterrole aggregation failed; retrying at the next change", "err", err)
			g.Authorizer.ix.notify()
			background.Sleep(ctx, informer.DefaultRetryDelay)
		}
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
// yet what its selectors gather.
func (g *Aggregator) aggregate(ctx context.Context) error {
	rv := clusterRoleResource(g.Registry())
	if rv == nil {
		return fmt.Errorf("%s.%s is not served", plurals[clusterRoles], Group)
	}
	for name, rules := range g.Authorizer.ix.aggregations() {
		patch, err := json.Marshal(map[string]any{"rules": rules})
		if err != nil {
			return fmt.Errorf("encode rules of %q: %w", name, err)
		}
		if _, err := g.Objects.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: name}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{
			WriteOptions: engine.WriteOptions{FieldManager: "clusterrole-aggregation-controller"}}}); err != nil {
			return fmt.Errorf("update rules of clusterrole %q: %w", name, err)
		}
	}
	return nil
}

// aggregations returns the rules each aggregated ClusterRole should have,
// for those that have other rules now.
func (ix *index) aggregations() map[string][]rbacv1.PolicyRule {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := map[string][]rbacv1.PolicyRule{}
	for name, cr := range ix.clusterRoles {
		if cr.AggregationRule == nil {
			continue
		}
		rules := ix.gather(cr)
		if !equality.Semantic.DeepEqual(rules, cr.Rules) {
			out[name] = rules
		}
	}
	return out
}

// gather returns the union of the rules of the ClusterRoles cr's
// selectors match, other than cr, taken in name order without repeats.
func (ix *index) gather(cr *rbacv1.ClusterRole) []rbacv1.PolicyRule {
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
	rules := []rbacv1.PolicyRule{}
	for _, m := range matched {
		rules = addMissingRules(rules, m.Rules)
	}
	return rules
}
