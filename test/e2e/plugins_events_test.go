package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// TestFleetEvents: the example fleet-controller records an Event on the
// Fleet it scales; scaling back to a size it had before raises the count
// of that Event instead of adding one; `kubectl describe fleet` lists
// them, found by the involvedObject field selectors.
func TestFleetEvents(t *testing.T) {
	t.Parallel()
	s := startSpecd(t, specdOptions{})
	k := newKubectl(t, s)
	dyn := dynamicClient(t, s)
	ctx := testContext(t, 3*time.Minute)

	k.OK(t, "create", "-f", k.Manifest(t, "fleet.yaml", `apiVersion: fleet.example.com/v1
kind: Fleet
metadata:
  name: armada
spec:
  replicas: 2
`))
	waitShips(t, ctx, dyn, "armada", 2)
	fleet := waitFleet(t, ctx, dyn, "armada", 2)
	first := waitFleetEvent(t, ctx, dyn, fleet, "Scaled to 2 ships", 1)
	checkFleetEvent(t, first, fleet)

	k.OK(t, "scale", "fleet", "armada", "--replicas=1")
	waitShips(t, ctx, dyn, "armada", 1)
	waitFleetEvent(t, ctx, dyn, fleet, "Scaled to 1 ship", 1)
	k.OK(t, "scale", "fleet", "armada", "--replicas=2")
	waitShips(t, ctx, dyn, "armada", 2)
	again := waitFleetEvent(t, ctx, dyn, fleet, "Scaled to 2 ships", 2)
	if again.Name != first.Name || !again.FirstTimestamp.Equal(&first.FirstTimestamp) || again.LastTimestamp.Before(&first.LastTimestamp) {
		t.Errorf("the repeat: %s first %v last %v; want %s counted, first %v", again.Name, again.FirstTimestamp, again.LastTimestamp,
			first.Name, first.FirstTimestamp)
	}
	if all := fleetEvents(t, ctx, dyn, fleet); len(all) != 2 {
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

// checkFleetEvent checks what makes ev an Event from fleet-controller
// about fleet, as client-go's recorder would write it.
func checkFleetEvent(t *testing.T, ev corev1.Event, fleet *unstructured.Unstructured) {
	t.Helper()
	want := corev1.ObjectReference{APIVersion: "fleet.example.com/v1", Kind: "Fleet", Namespace: "default",
		Name: fleet.GetName(), UID: fleet.GetUID()}
	got := ev.InvolvedObject
	got.ResourceVersion = ""
	if got != want || ev.InvolvedObject.ResourceVersion == "" {
		t.Errorf("involvedObject = %+v, want %+v with a resourceVersion", ev.InvolvedObject, want)
	}
	if ev.Namespace != "default" || !strings.HasPrefix(ev.Name, fleet.GetName()+".") || ev.Type != "Normal" ||
		ev.Reason != "Scaled" || ev.Source.Component != "fleet-controller" || ev.ReportingController != "fleet-controller" ||
		!strings.HasPrefix(ev.ReportingInstance, "fleet-controller") || ev.FirstTimestamp.IsZero() || ev.LastTimestamp.IsZero() {
		t.Errorf("event %s/%s: type %s reason %s source %+v reporting %s/%s first %v last %v", ev.Namespace, ev.Name,
			ev.Type, ev.Reason, ev.Source, ev.ReportingController, ev.ReportingInstance, ev.FirstTimestamp, ev.LastTimestamp)
	}
}

// waitFleetEvent waits until the fleet's Event with message has count.
func waitFleetEvent(t *testing.T, ctx context.Context, dyn dynamic.Interface, fleet *unstructured.Unstructured, message string, count int32) corev1.Event {
	t.Helper()
	var found corev1.Event
	eventuallyE2E(t, fmt.Sprintf("an Event %q x%d on fleet %s", message, count, fleet.GetName()), func() (bool, string) {
		all := fleetEvents(t, ctx, dyn, fleet)
		for _, ev := range all {
			if ev.Message == message && ev.Count == count {
				found = ev
				return true, ""
			}
		}
		return false, fmt.Sprint(all)
	})
	return found
}

// fleetEvents lists the Events about fleet with the field selectors
// kubectl describe uses.
func fleetEvents(t *testing.T, ctx context.Context, dyn dynamic.Interface, fleet *unstructured.Unstructured) []corev1.Event {
	t.Helper()
	sel := fmt.Sprintf("involvedObject.name=%s,involvedObject.namespace=%s,involvedObject.kind=Fleet,involvedObject.uid=%s",
		fleet.GetName(), fleet.GetNamespace(), fleet.GetUID())
	list, err := dyn.Resource(eventsGVR).Namespace(fleet.GetNamespace()).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatalf("list events %s: %v", sel, err)
	}
	out := make([]corev1.Event, len(list.Items))
	for i, item := range list.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, &out[i]); err != nil {
			t.Fatalf("event %s: %v", item.GetName(), err)
		}
	}
	return out
}
