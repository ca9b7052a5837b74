package api

import (
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestKubectlCore: the core group's built-in kinds work with kubectl as
// against kube-apiserver: discovery with their short names, create
// configmap and secret (typed clients, protobuf bodies), get -o yaml,
// leases, and explain from the served OpenAPI.
func TestKubectlCore(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	resources := k.OK(t, "api-resources", "--api-group=")
	for _, want := range []string{"configmaps", "cm", "events", "ev", "namespaces", "ns", "secrets"} {
		if !harness.ContainsField(resources, want) {
			t.Errorf("kubectl api-resources --api-group= has no %s:\n%s", want, resources)
		}
	}
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"create", "configmap", "x", "--from-literal=a=b"}, "configmap/x created"},
		{[]string{"get", "cm", "x", "-o", "jsonpath={.apiVersion} {.data.a}"}, "v1 b"},
		{[]string{"create", "secret", "generic", "s", "--from-literal=k=v"}, "secret/s created"},
		{[]string{"get", "secret", "s", "-o", "jsonpath={.type} {.data.k}"}, "Opaque dg=="}, // base64 of "v"
		{[]string{"get", "leases"}, "No resources found in default namespace."},
	}
	for _, st := range steps {
		if got := strings.TrimSpace(k.Run(t, st.args...).String()); !strings.Contains(got, st.want) {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(st.args, " "), got, st.want)
		}
	}
	if got := k.OK(t, "get", "secret", "s", "-o", "yaml"); !strings.Contains(got, "data:\n  k: dg==\n") || !strings.Contains(got, "apiVersion: v1\n") {
		t.Errorf("kubectl get secret -o yaml:\n%s", got)
	}
	if got := k.OK(t, "get", "cm"); !harness.ContainsField(got, "x") || !strings.HasPrefix(got, "NAME") {
		t.Errorf("kubectl get cm:\n%s", got)
	}
	explain := k.OK(t, "explain", "configmap")
	for _, want := range []string{"KIND:       ConfigMap", "VERSION:    v1", "binaryData", "immutable"} {
		if !strings.Contains(explain, want) {
			t.Errorf("kubectl explain configmap has no %q:\n%s", want, explain)
		}
	}
}
