// Package rbac owns specd's role-based access control: the four
// rbac.authorization.k8s.io/v1 kinds (Role, ClusterRole, RoleBinding,
// ClusterRoleBinding), served as ordinary specd resources, and what
// Kubernetes derives from them.
//
//   - Authorizer answers k8s.io/apiserver's authorizer.Authorizer and
//     RuleResolver from in-memory indexes that watches of the four
//     resources keep (no storage read per request): bindings by subject,
//     roles by namespace and name. Group system:masters is always allowed.
//   - Policy is a set of ClusterRoles and ClusterRoleBindings:
//     DefaultPolicy is kube's bootstrap policy that specd needs
//     (cluster-admin, admin, edit, view, discovery, basic-user,
//     public-info-viewer); SchemaPolicy adds the resources of the user's
//     schemas to admin, edit and view through the aggregation labels.
//     Reconcile writes a Policy, as kube-apiserver does at start.
//   - Aggregator fills the rules of ClusterRoles that have an
//     aggregationRule, as kube's clusterrole aggregation controller does.
//     Its passes, and the PolicyWriter's writes of the schema roles, are
//     paced by their cost, and at most once a second during a burst
//     (background.Pacer): they write roles that list every resource of
//     the schemas, and a burst of CRDs would otherwise cost the square of
//     their number.
//   - Mutators are kube's defaults of the bindings: a roleRef, and a User
//     or Group subject, without apiGroup name the RBAC group.
//   - WriteChecks prevent escalation as kube does: a Role or binding may
//     be written only by a user who holds what it grants, or may escalate
//     or bind; a binding's roleRef never changes.
//
// The match of a request against a rule follows kube's RBAC authorizer;
// the rule comparison of escalation checks is k8s.io/component-helpers'.
package rbac
