package clients

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// helmChart is a chart of example-schema objects whose values change
// between revisions.
var helmChart = filepath.Join("testdata", "helm", "shop")

// TestHelm installs, upgrades, rolls back and uninstalls a chart of custom
// objects with Helm v4 (test/helm) against specd over TLS, and checks the
// release records are Secrets of Helm's kind in the release's namespace.
func TestHelm(t *testing.T) {
	t.Parallel()
	h := newHelm(t, harness.HelmTool.Path(t))
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	h.kubeconfig = s.Kubeconfig
	k := harness.NewKubectl(t, s)

	h.OK(t, "install", "shop", helmChart, "--namespace", "default")
	checkRelease(t, h, "1", "deployed")
	checkWidgetColor(t, k, "red")
	checkReleaseSecrets(t, k, "1:deployed")

	h.OK(t, "upgrade", "shop", helmChart, "--namespace", "default", "--set", "color=blue")
	checkRelease(t, h, "2", "deployed")
	checkWidgetColor(t, k, "blue")
	checkReleaseSecrets(t, k, "1:superseded", "2:deployed")

	h.OK(t, "rollback", "shop", "1", "--namespace", "default")
	checkRelease(t, h, "3", "deployed")
	checkWidgetColor(t, k, "red")
	checkReleaseSecrets(t, k, "1:superseded", "2:superseded", "3:deployed")

	h.OK(t, "uninstall", "shop", "--namespace", "default")
	for _, obj := range []string{"widget/shop-widget", "books.shop.example.com/shop-book"} {
		if r := k.Run(t, "get", obj, "-n", "default"); r.Code == 0 || !strings.Contains(r.Stderr, "NotFound") {
			t.Errorf("%s after helm uninstall:\n%s", obj, r)
		}
	}
	checkReleaseSecrets(t, k)
	if out := h.OK(t, "list", "--namespace", "default", "-o", "json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("helm list after uninstall: %s", out)
	}
}

// helm runs the pinned Helm with its own home directories, so that no
// user configuration or cache changes what is tested.
type helm struct {
	bin, home, kubeconfig string
}

func newHelm(t *testing.T, bin string) *helm {
	return &helm{bin: bin, home: t.TempDir()}
}

// OK runs helm, fails the test unless it exits 0, and returns stdout.
func (h *helm) OK(t *testing.T, args ...string) string {
	t.Helper()
	ctx := harness.Context(t, harness.KubectlTimeout)
	cmd := exec.CommandContext(ctx, h.bin, append([]string{"--kubeconfig", h.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+h.home, "KUBECONFIG="+h.kubeconfig,
		"HELM_CACHE_HOME="+filepath.Join(h.home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(h.home, "config"),
		"HELM_DATA_HOME="+filepath.Join(h.home, "data"))
	var stdout, stderr harness.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("helm %s -> %v", strings.Join(args, " "), err)
	// Helm logs some failures (such as a release record it could not
	// update) and still exits 0.
	if err != nil || strings.Contains(stderr.String(), "level=ERROR") {
		t.Fatalf("helm %s: %v\n--- stdout ---\n%s--- stderr ---\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// checkRelease checks `helm list` shows the release shop at revision with
// status.
func checkRelease(t *testing.T, h *helm, revision, status string) {
	t.Helper()
	var list []map[string]any
	out := h.OK(t, "list", "--namespace", "default", "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("helm list -o json: %v\n%s", err, out)
	}
	if len(list) != 1 || list[0]["name"] != "shop" || fmt.Sprint(list[0]["revision"]) != revision || list[0]["status"] != status {
		t.Fatalf("helm list: %s, want shop at revision %s, %s", out, revision, status)
	}
}

func checkWidgetColor(t *testing.T, k *harness.Kubectl, color string) {
	t.Helper()
	if got := k.OK(t, "get", "widget", "shop-widget", "-n", "default", "-o", "jsonpath={.spec.color}"); got != color {
		t.Errorf("widget shop-widget's color %q, want %q", got, color)
	}
}

// checkReleaseSecrets checks the Secrets labelled owner=helm in default are
// the release's records, one per "revision:status", of type
// helm.sh/release.v1.
func checkReleaseSecrets(t *testing.T, k *harness.Kubectl, want ...string) {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Type string `json:"type"`
		} `json:"items"`
	}
	out := k.OK(t, "get", "secrets", "-n", "default", "-l", "owner=helm", "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("kubectl get secrets -o json: %v\n%s", err, out)
	}
	var got []string
	for _, s := range list.Items {
		l := s.Metadata.Labels
		if s.Type != "helm.sh/release.v1" || l["name"] != "shop" || s.Metadata.Name != "sh.helm.release.v1.shop.v"+l["version"] {
			t.Errorf("secret %s: type %q, labels %v; want a release record of shop", s.Metadata.Name, s.Type, l)
		}
		got = append(got, l["version"]+":"+l["status"])
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("release secrets (version:status) %v, want %v", got, want)
	}
}
