package aggregated

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pluginEventsInHost: the example fleet-controller, reconciling a Fleet
// created through the host, records its Event in the host's events,
// about the Fleet.
func pluginEventsInHost(t *testing.T, h *host) {
	applyYAML(t, h, "apiVersion: fleet.example.com/v1\nkind: Fleet\nmetadata: {name: armada, namespace: default}\nspec: {replicas: 2}\n")
	ctx := context.Background()
	eventually(t, 60*time.Second, "the fleet's event in the host", func() (bool, string) {
		list, err := h.client.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=armada"})
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range list.Items {
			if ev.Reason == "Scaled" && ev.Message == "Scaled to 2 ships" && ev.InvolvedObject.Kind == "Fleet" &&
				ev.Source.Component == "fleet-controller" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events: %v", len(list.Items), list.Items)
	})
}
