package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The example plugins' resources (examples/schemas/fleet.example.com).
var (
	ShipsGVR  = schema.GroupVersionResource{Group: "fleet.example.com", Version: "v1", Resource: "ships"}
	FleetsGVR = schema.GroupVersionResource{Group: "fleet.example.com", Version: "v1", Resource: "fleets"}
)

const (
	ShipsFinalizer = "fleet.example.com/ships"
	fleetLabel     = "fleet.example.com/fleet"
)

// WaitShips waits until the fleet has exactly the ships <fleet>-0..n-1.
func WaitShips(t *testing.T, ctx context.Context, dyn dynamic.Interface, fleet string, n int) {
	t.Helper()
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("%s-%d", fleet, i))
	}
	Converge(t, fmt.Sprintf("fleet %s has ships %v", fleet, want), func() (bool, string) {
		list, err := dyn.Resource(ShipsGVR).Namespace("default").List(ctx, metav1.ListOptions{LabelSelector: fleetLabel + "=" + fleet})
		if err != nil {
			return false, err.Error()
		}
		var got []string
		for _, item := range list.Items {
			if item.GetDeletionTimestamp() == nil {
				got = append(got, item.GetName())
			}
		}
		slices.Sort(got)
		return slices.Equal(got, want), fmt.Sprint(got)
	})
}

// WaitFleet waits until the fleet's status describes its generation with
// n ready ships and Ready True, and returns it.
func WaitFleet(t *testing.T, ctx context.Context, dyn dynamic.Interface, name string, n int64) *unstructured.Unstructured {
	t.Helper()
	var fleet *unstructured.Unstructured
	Converge(t, fmt.Sprintf("fleet %s ready with %d", name, n), func() (bool, string) {
		f, err := dyn.Resource(FleetsGVR).Namespace("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		fleet = f
		ready, _, _ := unstructured.NestedInt64(f.Object, "status", "readyReplicas")
		observed, _, _ := unstructured.NestedInt64(f.Object, "status", "observedGeneration")
		conds, _, _ := unstructured.NestedSlice(f.Object, "status", "conditions")
		readyTrue := false
		for _, c := range conds {
			m, _ := c.(map[string]any)
			readyTrue = readyTrue || (m["type"] == "Ready" && m["status"] == "True")
		}
		status, _, _ := unstructured.NestedMap(f.Object, "status")
		return ready == n && observed == f.GetGeneration() && readyTrue, fmt.Sprintf("generation %d, status %v", f.GetGeneration(), status)
	})
	return fleet
}

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// CheckFleetEvent checks what makes ev an Event from fleet-controller
// about fleet, as client-go's recorder would write it.
func CheckFleetEvent(t *testing.T, ev corev1.Event, fleet *unstructured.Unstructured) {
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

// WaitFleetEvent waits until the fleet's Event with message has count.
func WaitFleetEvent(t *testing.T, ctx context.Context, dyn dynamic.Interface, fleet *unstructured.Unstructured, message string, count int32) corev1.Event {
	t.Helper()
	var found corev1.Event
	Converge(t, fmt.Sprintf("an Event %q x%d on fleet %s", message, count, fleet.GetName()), func() (bool, string) {
		all := FleetEvents(t, ctx, dyn, fleet)
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

// FleetEvents lists the Events about fleet with the field selectors
// kubectl describe uses.
func FleetEvents(t *testing.T, ctx context.Context, dyn dynamic.Interface, fleet *unstructured.Unstructured) []corev1.Event {
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
