package controlplane

import (
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestFleetEvents: the example fleet-controller records an Event on the
// Fleet it scales; scaling back to a size it had before raises the count
// of that Event instead of adding one; `kubectl describe fleet` lists
// them, found by the involvedObject field selectors.
func TestFleetEvents(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	dyn := harness.DynamicClient(t, s)
	ctx := harness.Context(t, 3*time.Minute)

	k.OK(t, "create", "-f", k.Manifest(t, "fleet.yaml", `apiVersion: fleet.example.com/v1
kind: Fleet
metadata:
  name: armada
spec:
  replicas: 2
`))
	harness.WaitShips(t, ctx, dyn, "armada", 2)
	fleet := harness.WaitFleet(t, ctx, dyn, "armada", 2)
	first := harness.WaitFleetEvent(t, ctx, dyn, fleet, "Scaled to 2 ships", 1)
	harness.CheckFleetEvent(t, first, fleet)

	k.OK(t, "scale", "fleet", "armada", "--replicas=1")
	harness.WaitShips(t, ctx, dyn, "armada", 1)
	harness.WaitFleetEvent(t, ctx, dyn, fleet, "Scaled to 1 ship", 1)
	k.OK(t, "scale", "fleet", "armada", "--replicas=2")
	harness.WaitShips(t, ctx, dyn, "armada", 2)
	again := harness.WaitFleetEvent(t, ctx, dyn, fleet, "Scaled to 2 ships", 2)
	if again.Name != first.Name || !again.FirstTimestamp.Equal(&first.FirstTimestamp) || again.LastTimestamp.Before(&first.LastTimestamp) {
		t.Errorf("the repeat: %s first %v last %v; want %s counted, first %v", again.Name, again.FirstTimestamp, again.LastTimestamp,
			first.Name, first.FirstTimestamp)
	}
	if all := harness.FleetEvents(t, ctx, dyn, fleet); len(all) != 2 {
		t.Errorf("the fleet's Events: %d (%v), want 2: one per message", len(all), all)
	}

	out := k.OK(t, "describe", "fleet", "armada")
	_, events, ok := strings.Cut(out, "\nEvents:")
	words := strings.Join(strings.Fields(events), " ")
	for _, want := range []string{"Type Reason Age From Message", "Normal Scaled", "(x2 over", "fleet-controller Scaled to 2 ships",
		"fleet-controller Scaled to 1 ship"} {
		if !ok || !strings.Contains(words, want) {
			t.Errorf("kubectl describe fleet armada: no %q in its Events:\n%s", want, out)
		}
	}
}
