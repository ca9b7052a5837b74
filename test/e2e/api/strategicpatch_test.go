package api

import (
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

const settingsYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
  retries: "3"
`

// TestKubectlStrategicMergePatch: kubectl sends strategic merge patches
// for the built-in kinds (a second client-side apply, and patch, whose
// default type it is), and specd applies them as kube-apiserver does.
func TestKubectlStrategicMergePatch(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	ok := func(want string, args ...string) {
		t.Helper()
		if got := strings.TrimSpace(k.OK(t, args...)); got != want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), got, want)
		}
	}

	ok("configmap/settings created", "apply", "-f", k.Manifest(t, "settings.yaml", settingsYAML))
	changed := strings.Replace(strings.Replace(settingsYAML, "mode: fast", "mode: slow", 1), "  retries: \"3\"\n", "", 1)
	// -v=8 shows the request: the second apply is a strategic merge patch.
	r := k.Run(t, "apply", "-v=8", "-f", k.Manifest(t, "settings2.yaml", changed))
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "configmap/settings configured" ||
		!strings.Contains(r.Stderr, "Content-Type: application/strategic-merge-patch+json") {
		t.Fatalf("second apply, as a strategic merge patch:\n%s", r)
	}
	ok(`{"mode":"slow"}`, "get", "configmap", "settings", "-o", "jsonpath={.data}")

	ok("configmap/settings patched", "patch", "configmap", "settings", "-p", `{"data":{"level":"debug"}}`)
	ok(`{"level":"debug","mode":"slow"}`, "get", "configmap", "settings", "-o", "jsonpath={.data}")

	ok("role.rbac.authorization.k8s.io/reader created", "create", "role", "reader", "--verb=get,list", "--resource=configmaps,secrets")
	ok("role.rbac.authorization.k8s.io/reader patched", "patch", "role", "reader", "--type", "strategic",
		"-p", `{"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["watch"]}]}`)
	// rules have no merge key in the Go type: the list is replaced.
	ok(`[{"apiGroups":[""],"resources":["configmaps"],"verbs":["watch"]}]`, "get", "role", "reader", "-o", "jsonpath={.rules}")

	ok("widget.shop.example.com/small created", "create", "-f", k.Manifest(t, "widget.yaml",
		"apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: small\nspec:\n  color: red\n  size: 3\n"))
	fails := k.Fail(t, "patch", "widget", "small", "-p", `{"spec":{"size":8}}`)
	if !strings.Contains(fails, "application/strategic-merge-patch+json is not supported by shop.example.com/v1, Kind=Widget") {
		t.Errorf("a strategic merge patch of a custom resource: %s", fails)
	}
}
