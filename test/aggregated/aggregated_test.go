package aggregated

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
)

// TestAggregated is the proof of docs/aggregation.md against a real
// kube-apiserver: one host and one specd, the steps in order.
func TestAggregated(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kubernetes control plane")
	}
	h := startHost(t)
	s := setUpSpecd(t, h)
	registry := apiregistrationclient.NewForConfigOrDie(h.restConfig(t, h.admin))
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"APIServices available", func(t *testing.T) { awaitAvailable(t, h, "v1.shop.example.com") }},
		{"no APIService for built-in groups", func(t *testing.T) { noBuiltinAPIServices(t, registry) }},
		{"api-resources lists specd's kinds", func(t *testing.T) { apiResources(t, h) }},
		{"specd's status through the host", func(t *testing.T) { statusThroughHost(t, h) }},
		{"the examples of docs/aggregation.md", func(t *testing.T) { runDocs(t, h) }},
		{"every verb through the host", func(t *testing.T) { verbsThroughHost(t, h) }},
		{"host user decided by SubjectAccessReview", func(t *testing.T) { hostUserDecidedBySAR(t, h, s) }},
		{"forged X-Remote-User refused", func(t *testing.T) { forgedHeadersRefused(t, h, s) }},
		{"the chart's ServiceMonitor token reads /metrics", func(t *testing.T) { scraperReadsMetrics(t, h, s) }},
		{"plugin events in the host", func(t *testing.T) { pluginEventsInHost(t, h) }},
		{"host namespace deletion", func(t *testing.T) { namespaceDeletion(t, h) }},
		{"owned by a host ConfigMap", func(t *testing.T) { ownedByHostConfigMap(t, h) }},
		{"schema reloads followed", func(t *testing.T) { reloadFollowed(t, h, s, registry) }},
		{"front-proxy CA change followed", func(t *testing.T) { frontProxyCAChange(t, h, s) }},
		{"host unreachable", func(t *testing.T) { hostUnreachable(t, h, s) }},
		{"specd down and back", func(t *testing.T) { specdDown(t, h, s) }},
	}
	for _, step := range steps {
		if !t.Run(step.name, step.run) {
			t.Logf("specd's output:\n%s", tail(s.proc.cur.Out().String()))
			return
		}
	}
}

// awaitAvailable waits for the APIService name to be Available.
func awaitAvailable(t testing.TB, h *host, name string) {
	t.Helper()
	kubectl(t, h.admin, "wait", "--for=condition=Available", "apiservice/"+name, "--timeout=60s")
}

// noBuiltinAPIServices: specd's APIServices are those of its schemas'
// groups; the built-in groups stay the host's own (Local).
func noBuiltinAPIServices(t *testing.T, registry *apiregistrationclient.ApiregistrationV1Client) {
	// status.specd.io is specd's own state, reserved but not the host's:
	// it is served through the host like the schemas' groups.
	want := "v1.fleet.example.com v1.library.example.com v1.shop.example.com v1alpha1.status.specd.io v1beta1.library.example.com v2beta1.shop.example.com"
	// specd writes them one after another: the first step waited for one.
	var got string
	for deadline := time.Now().Add(30 * time.Second); got != want && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got = specdAPIServices(t, registry)
	}
	if got != want {
		t.Errorf("specd's APIServices: %s, want %s", got, want)
	}
	for _, name := range []string{"v1.", "v1.rbac.authorization.k8s.io", "v1.coordination.k8s.io", "v1.events.k8s.io", "v1.apiextensions.k8s.io"} {
		s, err := registry.APIServices().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Spec.Service != nil {
			t.Errorf("%s points at %v: not the host's own", name, s.Spec.Service)
		}
	}
}

// statusThroughHost: specd's own state (status.specd.io) is served
// through the host like the schemas' groups.
func statusThroughHost(t *testing.T, h *host) {
	awaitAvailable(t, h, "v1alpha1.status.specd.io")
	out := kubectl(t, h.admin, "get", "schemafiles.status.specd.io", "-o", "name")
	if !strings.Contains(out, "schemafile.status.specd.io/") {
		t.Fatalf("kubectl get schemafiles through the host: %s", out)
	}
}

// specdAPIServices are the names of the APIServices specd manages, in
// order, space-separated.
func specdAPIServices(t *testing.T, registry *apiregistrationclient.ApiregistrationV1Client) string {
	list, err := registry.APIServices().List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=specd"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}

func apiResources(t *testing.T, h *host) {
	out := kubectl(t, h.admin, "api-resources", "--api-group=shop.example.com", "-o", "name")
	if !strings.Contains(out, "widgets.shop.example.com") {
		t.Fatalf("api-resources: %s", out)
	}
}
