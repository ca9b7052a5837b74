package auth

import (
	"slices"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// rbacYAML is RBAC as users apply it: a ClusterRole with an aggregation
// rule and a ClusterRoleBinding to a group, in one file.
const rbacYAML = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widget-viewer
  labels:
    rbac.example.com/aggregate-to-view: "true"
rules:
- apiGroups: [shop.example.com]
  resources: [widgets, widgets/status]
  verbs: [get, list, watch]
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:widget-viewers
subjects:
- kind: Group
  apiGroup: rbac.authorization.k8s.io
  name: viewers
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: widget-viewer
`

// TestKubectlRBAC: the built-in RBAC kinds work with kubectl's create
// subcommands, apply and get, against the example schemas' resources.
func TestKubectlRBAC(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"create", "role", "widget-reader", "--verb=get", "--verb=list", "--resource=widgets"}, "role.rbac.authorization.k8s.io/widget-reader created"},
		{[]string{"create", "rolebinding", "alice-reads", "--role=widget-reader", "--user=alice"}, "rolebinding.rbac.authorization.k8s.io/alice-reads created"},
		{[]string{"create", "clusterrole", "widget-admin", "--verb=*", "--resource=widgets,warehouses"}, "clusterrole.rbac.authorization.k8s.io/widget-admin created"},
		{[]string{"create", "clusterrolebinding", "bob-admin", "--clusterrole=widget-admin", "--user=bob", "--group=admins"}, "clusterrolebinding.rbac.authorization.k8s.io/bob-admin created"},
		{[]string{"apply", "-f", k.Manifest(t, "rbac.yaml", rbacYAML)}, "clusterrole.rbac.authorization.k8s.io/widget-viewer created\nclusterrolebinding.rbac.authorization.k8s.io/system:widget-viewers created"},
	}
	for _, st := range steps {
		if got := strings.TrimSpace(k.OK(t, st.args...)); got != st.want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(st.args, " "), got, st.want)
		}
	}
	t.Run("get", func(t *testing.T) {
		// Headers of two words ("CREATED AT", as kube prints roles):
		// compare the words of each line.
		roles := lineFields(k.OK(t, "get", "roles"))
		if len(roles) != 2 || !slices.Equal(roles[0], []string{"NAME", "CREATED", "AT"}) ||
			len(roles[1]) != 2 || roles[1][0] != "widget-reader" || !strings.HasSuffix(roles[1][1], "Z") {
			t.Errorf("get roles: %q", roles)
		}
		bindings := lineFields(k.OK(t, "get", "rolebindings", "-o", "wide"))
		if len(bindings) != 2 || !slices.Equal(bindings[0], []string{"NAME", "ROLE", "AGE", "ROLE", "KIND"}) ||
			len(bindings[1]) != 4 || bindings[1][0] != "alice-reads" || bindings[1][1] != "widget-reader" || bindings[1][3] != "Role" {
			t.Errorf("get rolebindings -o wide: %q", bindings)
		}
		crbs := harness.ParseTable(t, k.OK(t, "get", "clusterrolebindings"))
		if row := crbs.Row("NAME", "system:widget-viewers"); row["ROLE"] != "widget-viewer" {
			t.Errorf("get clusterrolebindings: %+v", crbs)
		}
		// Beside specd's default roles (see docs/security.md).
		names := strings.Fields(k.OK(t, "get", "clusterroles", "-o", "name"))
		for _, want := range []string{"clusterrole.rbac.authorization.k8s.io/widget-admin", "clusterrole.rbac.authorization.k8s.io/widget-viewer",
			"clusterrole.rbac.authorization.k8s.io/cluster-admin", "clusterrole.rbac.authorization.k8s.io/view"} {
			if !slices.Contains(names, want) {
				t.Errorf("get clusterroles -o name: %v, want %s among them", names, want)
			}
		}
	})
	t.Run("rules as kubectl wrote them", func(t *testing.T) {
		got := k.OK(t, "get", "role", "widget-reader", "-o", "jsonpath={.rules[0].apiGroups[0]} {.rules[0].resources} {.rules[0].verbs}")
		if want := `shop.example.com ["widgets"] ["get","list"]`; got != want {
			t.Errorf("role rules: %q, want %q", got, want)
		}
		got = k.OK(t, "get", "clusterrolebinding", "bob-admin", "-o", "jsonpath={.roleRef.kind}/{.roleRef.name} {.subjects[*].name}")
		if want := "ClusterRole/widget-admin bob admins"; got != want {
			t.Errorf("clusterrolebinding: %q, want %q", got, want)
		}
	})
	t.Run("apply again is unchanged", func(t *testing.T) {
		got := strings.TrimSpace(k.OK(t, "apply", "-f", k.Dir+"/rbac.yaml"))
		if want := "clusterrole.rbac.authorization.k8s.io/widget-viewer unchanged\nclusterrolebinding.rbac.authorization.k8s.io/system:widget-viewers unchanged"; got != want {
			t.Errorf("apply again: %q, want %q", got, want)
		}
	})
}

// lineFields is the words of each line of out.
func lineFields(out string) [][]string {
	var lines [][]string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		lines = append(lines, strings.Fields(l))
	}
	return lines
}
