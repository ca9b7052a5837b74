package builtin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// TestRBACObjects validates objects as kubectl writes them against the
// compiled built-in schemas: what kube accepts passes, and what its
// OpenAPI or validation refuses fails at the field kube names.
func TestRBACObjects(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		plural  string
		object  string
		wantErr string // "" when valid; else a substring of the errors
	}{
		"role":               {"roles", `{"rules":[{"apiGroups":["shop.example.com"],"resources":["widgets","widgets/status"],"resourceNames":["a"],"verbs":["get","list"]}]}`, ""},
		"role without rules": {"roles", `{}`, ""},
		"rule without verbs": {"roles", `{"rules":[{"apiGroups":[""],"resources":["pods"]}]}`, "rules[0].verbs"},
		"rule with no verb":  {"roles", `{"rules":[{"verbs":[],"apiGroups":[""],"resources":["pods"]}]}`, "rules[0].verbs"},
		"cluster role with urls and aggregation": {"clusterroles", `{"rules":[{"nonResourceURLs":["/metrics","/openapi/*"],"verbs":["get"]}],
			"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"rbac.example.com/aggregate-to-view":"true"}},
			{"matchExpressions":[{"key":"tier","operator":"In","values":["a"]}]}]}}`, ""},
		"selector with bad operator": {"clusterroles", `{"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"k","operator":"Is"}]}]}}`, "operator"},
		"role binding": {"rolebindings", `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
			"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"},{"kind":"ServiceAccount","name":"default","namespace":"ns"}]}`, ""},
		"binding without roleRef":        {"rolebindings", `{"subjects":[{"kind":"User","name":"alice"}]}`, "roleRef"},
		"roleRef without name":           {"rolebindings", `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role"}}`, "roleRef.name"},
		"roleRef of another group":       {"rolebindings", `{"roleRef":{"apiGroup":"example.com","kind":"Role","name":"r"}}`, "roleRef.apiGroup"},
		"subject of unknown kind":        {"rolebindings", `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"kind":"Robot","name":"x"}]}`, "subjects[0].kind"},
		"cluster role binding":           {"clusterrolebindings", `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"kind":"Group","name":"system:masters"}]}`, ""},
		"cluster role binding to a role": {"clusterrolebindings", `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}}`, "roleRef.kind"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rv := reg.Lookup("rbac.authorization.k8s.io", "v1", tc.plural)
			var obj map[string]any
			if err := json.Unmarshal([]byte(tc.object), &obj); err != nil {
				t.Fatal(err)
			}
			if pruned := rv.Schema.Prune(obj); len(pruned) > 0 {
				t.Errorf("fields pruned: %v", pruned)
			}
			errs := rv.Schema.Validate(obj)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tc.wantErr != "" && !strings.Contains(fmt.Sprint(errs), tc.wantErr):
				t.Errorf("errors %v do not name %q", errs, tc.wantErr)
			}
		})
	}
}

// TestCRDConditionWithoutType: a CRD status condition with neither type
// nor status is valid, and reads with both "", as kube-apiserver, which
// decodes it into its Go type, answers it (kube's CRD e2e test patches
// one in through the status subresource).
func TestCRDConditionWithoutType(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	rv := reg.Lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	obj := map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"message": "patched"}}}}
	rv.Schema.Default(obj)
	for _, e := range rv.Schema.Validate(obj) {
		if strings.HasPrefix(e.Field, "status") {
			t.Errorf("error: %v", e)
		}
	}
	got, _ := json.Marshal(obj["status"])
	if want := `{"conditions":[{"message":"patched","status":"","type":""}]}`; string(got) != want {
		t.Errorf("status %s, want %s", got, want)
	}
}
