package namespace

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// conditionTypes are the conditions the controller keeps on a
// Terminating namespace, in kube's order.
var conditionTypes = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceContentRemaining,
	corev1.NamespaceFinalizersRemaining,
}

// okConditions are each type's condition when nothing is wrong, as kube
// words them.
var okConditions = map[corev1.NamespaceConditionType]struct{ reason, message string }{
	corev1.NamespaceDeletionDiscoveryFailure: {"ResourcesDiscovered", "All resources successfully discovered"},
	corev1.NamespaceDeletionGVParsingFailure: {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
	corev1.NamespaceDeletionContentFailure:   {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	corev1.NamespaceContentRemaining:         {"ContentRemoved", "All content successfully removed"},
	corev1.NamespaceFinalizersRemaining:      {"ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// pass is what one pass over a namespace's content found.
type pass struct {
	// discovery is set when some resource could not be listed at all
	// (specd's registry replaces kube's discovery).
	discovery error
	// deleteErrs are the errors deleting content, one per resource.
	deleteErrs []error
	// remaining counts the objects left, by plural.group; finalizers
	// counts those left by each finalizer that holds them.
	remaining  map[string]int
	finalizers map[string]int
}

// conditions are the failing conditions of p, as kube's namespace
// controller sets them; the types missing are fine.
func (p *pass) conditions() []corev1.NamespaceCondition {
	var out []corev1.NamespaceCondition
	failing := func(t corev1.NamespaceConditionType, reason, message string) {
		out = append(out, corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message})
	}
	if p.discovery != nil {
		failing(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", p.discovery.Error())
	}
	if len(p.deleteErrs) > 0 {
		msgs := make([]string, 0, len(p.deleteErrs))
		for _, err := range p.deleteErrs {
			msgs = append(msgs, err.Error())
		}
		sort.Strings(msgs)
		failing(corev1.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", ")))
	}
	if len(p.remaining) > 0 {
		failing(corev1.NamespaceContentRemaining, "SomeResourcesRemain",
			"Some resources are remaining: "+counted(p.remaining, "%s has %d resource instances"))
	}
	if len(p.finalizers) > 0 {
		failing(corev1.NamespaceFinalizersRemaining, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+counted(p.finalizers, "%s in %d resource instances"))
	}
	return out
}

// counted formats each count with format, sorted and joined as kube's.
func counted(counts map[string]int, format string) string {
	parts := make([]string, 0, len(counts))
	for name, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf(format, name, n))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// updateConditions sets each of conditionTypes in current to the failing
// condition of failing, or to its fine one, as kube does: an existing
// condition is changed in place and gets a new transition time only when
// its status changes. It reports whether anything changed.
func updateConditions(current []corev1.NamespaceCondition, failing []corev1.NamespaceCondition, now time.Time) ([]corev1.NamespaceCondition, bool) {
	stamp := metav1.NewTime(now.UTC().Truncate(time.Second))
	changed := false
	for _, t := range conditionTypes {
		want := find(failing, t)
		if want == nil {
			ok := okConditions[t]
			want = &corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: ok.reason, Message: ok.message}
		}
		old := find(current, t)
		switch {
		case old == nil:
			want.LastTransitionTime = stamp
			current = append(current, *want)
			changed = true
		case old.Status != want.Status || old.Reason != want.Reason || old.Message != want.Message:
			if old.Status != want.Status {
				old.LastTransitionTime = stamp
			}
			old.Status, old.Reason, old.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return current, changed
}

func find(conditions []corev1.NamespaceCondition, t corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}
