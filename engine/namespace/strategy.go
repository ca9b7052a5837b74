package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

// Strategies are the engine.Options.Strategies of Namespaces, which l
// follows: a namespace marked for deletion is read from storage by the
// checks of this replica for a while (forced).
func (l *Lifecycle) Strategies() map[string]*engine.Strategy {
	return map[string]*engine.Strategy{
		resource.String(): {
			PrepareCreate: prepareCreate,
			PrepareUpdate: prepareUpdate,
			Subresources:  []string{FinalizeSubresource},
			CheckDelete:   checkDelete,
			Holds:         holds,
			MarkDeleting:  l.markDeleting,
			// kube's namespace status strategy keeps only the spec.
			StatusMetadata: true,
		},
	}
}

// prepareCreate makes a new Namespace Active, with the kubernetes
// finalizer after those it asks for, as kube's namespace strategy does.
func prepareCreate(obj map[string]any) {
	obj["status"] = map[string]any{"phase": string(corev1.NamespaceActive)}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	fs := finalizersOf(spec)
	if !slices.Contains(fs, string(corev1.FinalizerKubernetes)) {
		spec["finalizers"] = append(toAny(fs), string(corev1.FinalizerKubernetes))
	}
	labelName(obj)
}

// prepareUpdate keeps what a write through subresource may not change:
// the object keeps spec.finalizers and status, /status keeps spec,
// /finalize keeps status.
func prepareUpdate(obj, old map[string]any, subresource string) {
	switch subresource {
	case "":
		spec, _ := obj["spec"].(map[string]any)
		oldSpec, _ := old["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		keep(spec, oldSpec, "finalizers")
		keep(obj, old, "status")
	case "status":
		keep(obj, old, "spec")
	case FinalizeSubresource:
		keep(obj, old, "status")
	}
	labelName(obj)
}

// keep sets key of obj to old's, or removes it when old has none.
func keep(obj, old map[string]any, key string) {
	if v, ok := old[key]; ok {
		obj[key] = v
	} else {
		delete(obj, key)
	}
}

// labelName sets the kubernetes.io/metadata.name label to the name, on
// every write, as kube does.
func labelName(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		return
	}
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		md["labels"] = labels
	}
	labels[corev1.LabelMetadataName] = md["name"]
}

// checkDelete refuses to delete the namespaces kube-apiserver keeps.
func checkDelete(_ context.Context, name string) error {
	if immortal[name] {
		return apierrors.NewForbidden(resource, name, errors.New("this namespace may not be deleted"))
	}
	return nil
}

// holds: a namespace stays while spec.finalizers has any.
func holds(stored []byte) bool {
	return gjson.GetBytes(stored, "spec.finalizers.0").Exists()
}

// markDeleting makes a namespace marked for deletion Terminating.
func (l *Lifecycle) markDeleting(stored []byte) ([]byte, error) {
	l.cache.force(gjson.GetBytes(stored, "metadata.name").Str)
	out, err := sjson.SetBytes(stored, "status.phase", string(corev1.NamespaceTerminating))
	if err != nil {
		return nil, fmt.Errorf("namespace: set phase: %w", err)
	}
	return out, nil
}

func finalizersOf(spec map[string]any) []string {
	list, _ := spec["finalizers"].([]any)
	out := make([]string, 0, len(list)+1)
	for _, f := range list {
		if s, ok := f.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss), len(ss)+1)
	for i, s := range ss {
		out[i] = s
	}
	return out
}
