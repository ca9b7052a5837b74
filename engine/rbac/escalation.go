package rbac

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins/hook"
)

// WriteChecks are the engine's checks of writes to the four resources
// (engine.Options.WriteChecks): escalation prevention, and roleRef
// immutability of bindings.
func (a *Authorizer) WriteChecks() map[string]engine.WriteCheck {
	return map[string]engine.WriteCheck{
		plurals[roles] + "." + Group:               a.checkRole,
		plurals[clusterRoles] + "." + Group:        a.checkClusterRole,
		plurals[roleBindings] + "." + Group:        a.checkRoleBinding,
		plurals[clusterRoleBindings] + "." + Group: a.checkClusterRoleBinding,
	}
}

// fullAuthority is cluster-admin's: what setting an aggregationRule
// needs, since it can gather anything.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

func (a *Authorizer) checkRole(ctx context.Context, req hook.AdmissionRequest) error {
	var obj, old rbacv1.Role
	u, skip, err := a.prepare(ctx, req, &obj, &old)
	if skip || err != nil {
		return err
	}
	return a.confirmRules(ctx, u, req, obj.Rules)
}

func (a *Authorizer) checkClusterRole(ctx context.Context, req hook.AdmissionRequest) error {
	if internal(ctx) {
		// specd's own writers encode the roles they write; decoding them
		// again, to let a master pass, cost the Aggregator a decode of
		// admin, edit and view per CRD.
		return nil
	}
	var obj, old rbacv1.ClusterRole
	u, skip, err := a.prepare(ctx, req, &obj, &old)
	if skip || err != nil {
		return err
	}
	if err := a.confirmRules(ctx, u, req, obj.Rules); err != nil || obj.AggregationRule == nil {
		return err
	}
	if a.covers(u, "", fullAuthority) != nil {
		return forbidden(req, errors.New("must have cluster-admin privileges to use the aggregationRule"))
	}
	return nil
}

func (a *Authorizer) checkRoleBinding(ctx context.Context, req hook.AdmissionRequest) error {
	var obj, old rbacv1.RoleBinding
	return a.checkBinding(ctx, req, &obj, &old, &obj.RoleRef, &old.RoleRef)
}

func (a *Authorizer) checkClusterRoleBinding(ctx context.Context, req hook.AdmissionRequest) error {
	var obj, old rbacv1.ClusterRoleBinding
	return a.checkBinding(ctx, req, &obj, &old, &obj.RoleRef, &old.RoleRef)
}

// checkBinding lets a binding be written by who may bind its role, or
// holds every rule of it; its roleRef never changes.
func (a *Authorizer) checkBinding(ctx context.Context, req hook.AdmissionRequest, obj, old any, ref, oldRef *rbacv1.RoleRef) error {
	u, skip, err := a.prepare(ctx, req, obj, old)
	if err != nil {
		return err
	}
	if req.OldObject != nil && *ref != *oldRef {
		return apierrors.NewInvalid(schemaGroupKind(req), req.Name, field.ErrorList{
			field.Invalid(field.NewPath("roleRef"), *ref, "cannot change roleRef")})
	}
	if skip || a.allowed(ctx, u, "bind", ref.APIGroup, roleResource(ref.Kind), ref.Name, req.Namespace) {
		return nil
	}
	a.ix.mu.RLock()
	rules, err := a.ix.roleRefRules(*ref, req.Namespace)
	a.ix.mu.RUnlock()
	if err != nil {
		return forbidden(req, err)
	}
	if err := a.covers(u, req.Namespace, rules); err != nil {
		return forbidden(req, err)
	}
	return nil
}

// prepare decodes the written object (and the stored one on update) and
// returns its user; skip is set when the write needs no escalation check:
// a member of system:masters, or an update of nothing but the fields the
// garbage collector needs (as kube lets through).
func (a *Authorizer) prepare(ctx context.Context, req hook.AdmissionRequest, obj, old any) (user.Info, bool, error) {
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, false, forbidden(req, errors.New("no user on context"))
	}
	if err := json.Unmarshal(req.Object, obj); err != nil {
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("decode %s: %v", req.Resource, err))
	}
	if req.OldObject != nil {
		if err := json.Unmarshal(req.OldObject, old); err != nil {
			return nil, false, apierrors.NewInternalError(fmt.Errorf("decode stored %s: %w", req.Resource, err))
		}
		if onlyGCFields(obj, old) {
			return u, true, nil
		}
	}
	return u, isMaster(u), nil
}

// confirmRules lets a role be written by who may escalate roles of its
// kind, or holds every rule it grants.
func (a *Authorizer) confirmRules(ctx context.Context, u user.Info, req hook.AdmissionRequest, rules []rbacv1.PolicyRule) error {
	name := ""
	if req.Operation == hook.OperationUpdate {
		name = req.Name // kube asks with the URL's name: none on a create
	}
	if a.allowed(ctx, u, "escalate", req.Group, req.Resource, name, req.Namespace) {
		return nil
	}
	if err := a.covers(u, req.Namespace, rules); err != nil {
		return forbidden(req, err)
	}
	return nil
}

// allowed asks the Authorizer whether u may verb the resource.
func (a *Authorizer) allowed(ctx context.Context, u user.Info, verb, group, resource, name, ns string) bool {
	d, _, err := a.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, APIVersion: "*",
		Resource: resource, Name: name, Namespace: ns, ResourceRequest: true})
	return err == nil && d == authorizer.DecisionAllow
}

// covers is nil when u holds every rule of rules in ns, else kube's
// error naming what is missing.
func (a *Authorizer) covers(u user.Info, ns string, rules []rbacv1.PolicyRule) error {
	owned, resolveErr := a.rulesFor(u, ns)
	ok, missing := validation.Covers(owned, rules)
	if ok {
		return nil
	}
	var lines []string
	for _, r := range compactRules(missing) {
		if s := compactString(r); !slices.Contains(lines, s) {
			lines = append(lines, s)
		}
	}
	slices.Sort(lines)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.GetName(), u.GetGroups(), strings.Join(lines, "\n"))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: %v", []error{resolveErr})
	}
	return errors.New(msg)
}

// onlyGCFields reports whether obj differs from old in nothing but the
// fields the garbage collector and the server write.
func onlyGCFields(obj, old any) bool {
	m, oldMeta := objectMeta(obj), objectMeta(old)
	saved := *m
	defer func() { *m = saved }()
	m.OwnerReferences, m.Finalizers = oldMeta.OwnerReferences, oldMeta.Finalizers
	m.DeletionTimestamp, m.DeletionGracePeriodSeconds = oldMeta.DeletionTimestamp, oldMeta.DeletionGracePeriodSeconds
	m.ManagedFields, m.ResourceVersion, m.Generation = oldMeta.ManagedFields, oldMeta.ResourceVersion, oldMeta.Generation
	return equality.Semantic.DeepEqual(obj, old)
}

func objectMeta(obj any) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *rbacv1.Role:
		return &o.ObjectMeta
	case *rbacv1.ClusterRole:
		return &o.ObjectMeta
	case *rbacv1.RoleBinding:
		return &o.ObjectMeta
	case *rbacv1.ClusterRoleBinding:
		return &o.ObjectMeta
	}
	panic(fmt.Sprintf("rbac: not an RBAC object: %T", obj))
}

func roleResource(kind string) string {
	if kind == "ClusterRole" {
		return plurals[clusterRoles]
	}
	return plurals[roles]
}

// forbidden is kube's 403 for a write of req's object.
func forbidden(req hook.AdmissionRequest, err error) error {
	return apierrors.NewForbidden(schemaGroupResource(req), req.Name, err)
}
