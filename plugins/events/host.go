package events

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/specd-io/specd/plugins/hook"
)

// HostSink writes Events into a host cluster's core/v1 events, as
// specd's own account there (its kubeconfig's user), for specd serving
// aggregated: the events about its objects are where kubectl describe
// and the cluster's tools look for them.
type HostSink struct {
	Client corev1client.EventsGetter
}

var _ Sink = HostSink{}

// Create implements Sink: r is always Resource.
func (h HostSink) Create(ctx context.Context, _ hook.ResourceRef, namespace string, obj []byte) ([]byte, error) {
	var ev corev1.Event
	if err := json.Unmarshal(obj, &ev); err != nil {
		return nil, fmt.Errorf("events: decode: %w", err)
	}
	got, err := h.Client.Events(namespace).Create(ctx, &ev, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return encode(got)
}

// Patch implements Sink.
func (h HostSink) Patch(ctx context.Context, _ hook.ResourceRef, namespace, name, patchType string, patch []byte, _ string) ([]byte, error) {
	got, err := h.Client.Events(namespace).Patch(ctx, name, types.PatchType(patchType), patch, metav1.PatchOptions{})
	if err != nil {
		return nil, err
	}
	return encode(got)
}

func encode(ev *corev1.Event) ([]byte, error) {
	ev.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("events: encode: %w", err)
	}
	return b, nil
}
