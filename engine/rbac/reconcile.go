package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// reconcileAttempts bounds the retries of one object whose write
// conflicts with another replica's.
const reconcileAttempts = 5

// Reconcile writes p's objects as kube-apiserver writes its bootstrap
// policy at start: it creates those that are missing and updates those
// annotated AutoUpdate "true" that lack part of the policy (or, with
// p.Exact, differ from it). It may run on several replicas at once: an
// object another one created or changed meanwhile is read again.
func Reconcile(ctx context.Context, objs engine.ReadWriter, reg *schemas.Registry, p Policy) error {
	ctx = WithInternalUser(ctx)
	crRV := reg.Lookup(Group, Version, plurals[clusterRoles])
	crbRV := reg.Lookup(Group, Version, plurals[clusterRoleBindings])
	if crRV == nil || crbRV == nil {
		return fmt.Errorf("rbac: reconcile: %s are not served", Group)
	}
	for _, want := range p.ClusterRoles {
		if err := reconcileOne(ctx, objs, crRV, want.Name, want, func(cur *rbacv1.ClusterRole) bool {
			return reconcileRole(cur, want, p.Exact)
		}); err != nil {
			return err
		}
	}
	for _, want := range p.ClusterRoleBindings {
		if err := reconcileOne(ctx, objs, crbRV, want.Name, want, func(cur *rbacv1.ClusterRoleBinding) bool {
			return reconcileBinding(cur, want, p.Exact)
		}); err != nil {
			return err
		}
	}
	return nil
}

// reconcileOne creates want, or brings the stored object to it with
// mend (which answers whether it changed anything).
func reconcileOne[T any](ctx context.Context, objs engine.ReadWriter, rv *schemas.ResourceVersion, name string, want *T, mend func(*T) bool) error {
	for range reconcileAttempts {
		err := reconcileAttempt(ctx, objs, rv, name, want, mend)
		if !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return fmt.Errorf("rbac: reconcile %s %q: still conflicting after %d attempts", rv.Resource.Kind, name, reconcileAttempts)
}

func reconcileAttempt[T any](ctx context.Context, objs engine.ReadWriter, rv *schemas.ResourceVersion, name string, want *T, mend func(*T) bool) error {
	opts := engine.WriteOptions{FieldManager: "specd-rbac-bootstrap"}
	data, err := objs.Get(ctx, engine.Ref{Version: rv, Namespace: "", Name: name})
	if apierrors.IsNotFound(err) {
		body, err := json.Marshal(want)
		if err != nil {
			return fmt.Errorf("rbac: encode %s %q: %w", rv.Resource.Kind, name, err)
		}
		_, err = objs.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: ""}, Body: body, Options: opts})
		return err
	}
	if err != nil {
		return fmt.Errorf("rbac: read %s %q: %w", rv.Resource.Kind, name, err)
	}
	cur := new(T)
	if err := json.Unmarshal(data, cur); err != nil {
		return fmt.Errorf("rbac: decode %s %q: %w", rv.Resource.Kind, name, err)
	}
	if objectMeta(cur).Annotations[AutoUpdate] != "true" || !mend(cur) {
		return nil
	}
	body, err := json.Marshal(cur)
	if err != nil {
		return fmt.Errorf("rbac: encode %s %q: %w", rv.Resource.Kind, name, err)
	}
	_, err = objs.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: name}, Body: body, Options: opts})
	return err
}

// reconcileRole brings cur to want; an aggregated role's rules are the
// Aggregator's.
func reconcileRole(cur, want *rbacv1.ClusterRole, exact bool) bool {
	changed := mendMeta(objectMeta(cur), objectMeta(want))
	if want.AggregationRule != nil {
		if !equality.Semantic.DeepEqual(cur.AggregationRule, want.AggregationRule) {
			cur.AggregationRule, changed = want.AggregationRule.DeepCopy(), true
		}
		return changed
	}
	rules := want.Rules
	if !exact {
		rules = addMissingRules(cur.Rules, want.Rules)
	}
	if !equality.Semantic.DeepEqual(cur.Rules, rules) {
		cur.Rules, changed = rules, true
	}
	return changed
}

// reconcileBinding brings cur's subjects to want's. A roleRef cannot
// change; a binding whose roleRef differs is left as the operator made it.
func reconcileBinding(cur, want *rbacv1.ClusterRoleBinding, exact bool) bool {
	changed := mendMeta(objectMeta(cur), objectMeta(want))
	if cur.RoleRef != want.RoleRef {
		return changed
	}
	subjects := want.Subjects
	if !exact {
		subjects = cur.Subjects
		for _, s := range want.Subjects {
			if !slices.Contains(subjects, s) {
				subjects = append(subjects, s)
			}
		}
	}
	if !equality.Semantic.DeepEqual(cur.Subjects, subjects) {
		cur.Subjects, changed = subjects, true
	}
	return changed
}

// mendMeta adds the labels and annotations of want that cur lacks.
func mendMeta(cur, want interface {
	GetLabels() map[string]string
	SetLabels(map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
}) bool {
	l, lc := addMissing(cur.GetLabels(), want.GetLabels())
	a, ac := addMissing(cur.GetAnnotations(), want.GetAnnotations())
	cur.SetLabels(l)
	cur.SetAnnotations(a)
	return lc || ac
}

func addMissing(cur, want map[string]string) (map[string]string, bool) {
	changed := false
	for k, v := range want {
		if got, ok := cur[k]; !ok || got != v {
			if cur == nil {
				cur = map[string]string{}
			}
			cur[k], changed = v, true
		}
	}
	return cur, changed
}

// addMissingRules appends to dst each rule of src it does not hold yet.
func addMissingRules(dst, src []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	for _, r := range src {
		if !slices.ContainsFunc(dst, func(x rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(x, r) }) {
			dst = append(dst, r)
		}
	}
	return dst
}
