package controlplane

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

var leaderLine = regexp.MustCompile(`(?m)^specd_leader\{election="background"\} (\d)`)

// leads reports whether s holds the election of the background work
// (the controllers among it), from its specd_leader metric.
func leads(t *testing.T, s *harness.Specd) bool {
	t.Helper()
	resp := testhttp.Do(t, &http.Client{Timeout: 10 * time.Second}, testhttp.Request{URL: s.URL + "/metrics"})
	m := leaderLine.FindStringSubmatch(resp.Body)
	return m != nil && m[1] == "1"
}

// reconciled reports whether s ran the fleet controller's reconciles.
func reconciled(t *testing.T, s *harness.Specd) bool {
	t.Helper()
	resp := testhttp.Do(t, &http.Client{Timeout: 10 * time.Second}, testhttp.Request{URL: s.URL + "/metrics"})
	return regexp.MustCompile(`specd_reconcile_total\{plugin="fleet-controller",resource="fleets.fleet.example.com",result="success"\} [1-9]`).MatchString(resp.Body)
}

// TestControllersOneLeader: of two specd replicas on one etcd exactly one
// is elected to run the background work, the reconcilers with it; when it
// dies the other takes over.
func TestControllersOneLeader(t *testing.T) {
	t.Parallel()
	ctx := harness.Context(t, 3*time.Minute)
	endpoints := harness.StartEtcd(t)
	a := harness.StartSpecd(t, harness.SpecdOptions{EtcdServers: endpoints})
	b := harness.StartSpecd(t, harness.SpecdOptions{EtcdServers: endpoints})

	var leader, follower *harness.Specd
	harness.Converge(t, "one leader", func() (bool, string) {
		la, lb := leads(t, a), leads(t, b)
		switch {
		case la && lb:
			t.Fatal("both replicas lead")
		case la:
			leader, follower = a, b
		case lb:
			leader, follower = b, a
		}
		return la != lb, ""
	})

	// A fleet, written through the follower: the leader reconciles it.
	fleet := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "fleet.example.com/v1", "kind": "Fleet",
		"metadata": map[string]any{"name": "west"}, "spec": map[string]any{"replicas": int64(2)},
	}}
	if _, err := harness.DynamicClient(t, follower).Resource(harness.FleetsGVR).Namespace("default").Create(ctx, fleet, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("leader %s, follower %s", leader.Addr, follower.Addr)
	dyn := harness.DynamicClient(t, follower)
	harness.WaitShips(t, ctx, dyn, "west", 2)
	harness.WaitFleet(t, ctx, dyn, "west", 2)
	// The reconcile's metric is counted once its writes are done, so
	// after the ships are seen it may still be on its way.
	harness.Converge(t, "the leader's reconcile counted", func() (bool, string) { return reconciled(t, leader), "" })
	if reconciled(t, follower) {
		t.Error("the follower reconciled too; want the leader's reconciles only")
	}
	if leads(t, follower) {
		t.Error("the follower leads too")
	}

	// The leader dies without resigning: the follower leads once the
	// leader's lease (5s) expires, and reconciles.
	leader.Kill()
	died := time.Now()
	harness.Converge(t, "the follower leads", func() (bool, string) { return leads(t, follower), "" })
	t.Logf("failover took %s", time.Since(died).Round(100*time.Millisecond))
	if _, err := dyn.Resource(harness.FleetsGVR).Namespace("default").Patch(ctx, "west", "application/merge-patch+json",
		[]byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	harness.WaitShips(t, ctx, dyn, "west", 4)
	harness.WaitFleet(t, ctx, dyn, "west", 4)
}
