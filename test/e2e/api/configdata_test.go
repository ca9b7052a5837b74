package api

import (
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// dbSecretYAML is a Secret as users apply it, with stringData.
const dbSecretYAML = `apiVersion: v1
kind: Secret
metadata:
  name: db
stringData:
  password: hunter2
`

// TestKubectlConfigData: kubectl's secret and configmap commands, apply
// (client- and server-side) and patch against the built-in Secret and
// ConfigMap, with kube's rules for their data and kube's messages.
func TestKubectlConfigData(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	ok := func(want string, args ...string) {
		t.Helper()
		if got := strings.TrimSpace(k.OK(t, args...)); got != want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), got, want)
		}
	}
	fails := func(want string, args ...string) {
		t.Helper()
		if got := strings.TrimSpace(k.Fail(t, args...)); !strings.Contains(got, want) {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), got, want)
		}
	}
	ok("secret/s created", "create", "secret", "generic", "s", "--from-literal=a=b")
	ok("Yg==", "get", "secret", "s", "-o", "jsonpath={.data.a}")
	ok("Opaque", "get", "secret", "s", "-o", "jsonpath={.type}")

	ok("secret/db created", "apply", "-f", k.Manifest(t, "db.yaml", dbSecretYAML))
	ok("aHVudGVyMg==", "get", "secret", "db", "-o", "jsonpath={.data.password}")
	ok("", "get", "secret", "db", "-o", "jsonpath={.stringData}")
	fails(`The Secret "db" is invalid: type: Invalid value: "example.com/token": field is immutable`,
		"patch", "secret", "db", "--type=merge", "-p", `{"type":"example.com/token"}`)

	ok("secret/ssa serverside-applied", "apply", "--server-side", "-f",
		k.Manifest(t, "ssa.yaml", strings.Replace(dbSecretYAML, "name: db", "name: ssa", 1)))
	ok("aHVudGVyMg==", "get", "secret", "ssa", "-o", "jsonpath={.data.password}")

	ok("configmap/settings created", "create", "configmap", "settings", "--from-literal=mode=fast")
	ok("configmap/settings patched", "patch", "configmap", "settings", "--type=merge", "-p", `{"immutable":true}`)
	fails("The ConfigMap \"settings\" is invalid: data: Forbidden: field is immutable when `immutable` is set",
		"patch", "configmap", "settings", "--type=merge", "-p", `{"data":{"mode":"slow"}}`)
	ok("configmap/settings labeled", "label", "configmap", "settings", "tier=gold")
	ok("fast", "get", "configmap", "settings", "-o", "jsonpath={.data.mode}")
}
