package namespace

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// TestPassConditions: what a pass found becomes kube's failing
// conditions, counts sorted.
func TestPassConditions(t *testing.T) {
	tests := map[string]struct {
		pass pass
		want map[corev1.NamespaceConditionType]string
	}{
		"nothing left": {pass: pass{}, want: map[corev1.NamespaceConditionType]string{}},
		"finalizers hold": {
			pass: pass{remaining: map[string]int{"things.example.com": 1, "configmaps.": 2}, finalizers: map[string]int{"b/x": 2, "a/y": 1}},
			want: map[corev1.NamespaceConditionType]string{
				corev1.NamespaceContentRemaining:    "SomeResourcesRemain: Some resources are remaining: configmaps. has 2 resource instances, things.example.com has 1 resource instances",
				corev1.NamespaceFinalizersRemaining: "SomeFinalizersRemain: Some content in the namespace has finalizers remaining: a/y in 1 resource instances, b/x in 2 resource instances",
			},
		},
		"failures": {
			pass: pass{discovery: errors.New("gone"), deleteErrs: []error{errors.New("z"), errors.New("a")}},
			want: map[corev1.NamespaceConditionType]string{
				corev1.NamespaceDeletionDiscoveryFailure: "DiscoveryFailed: gone",
				corev1.NamespaceDeletionContentFailure:   "ContentDeletionFailed: Failed to delete all resource types, 2 remaining: a, z",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := map[corev1.NamespaceConditionType]string{}
			for _, c := range tc.pass.conditions() {
				if c.Status != corev1.ConditionTrue {
					t.Errorf("%s is %s, want True", c.Type, c.Status)
				}
				got[c.Type] = c.Reason + ": " + c.Message
			}
			if len(got) != len(tc.want) {
				t.Fatalf("conditions %q, want %q", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// TestUpdateConditions: every type is set, to its fine form when not
// failing; a change of message keeps the transition time, a change of
// status moves it; nothing new changes nothing.
func TestUpdateConditions(t *testing.T) {
	t0, t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	held := (&pass{remaining: map[string]int{"a.": 1}, finalizers: map[string]int{"f": 1}}).conditions()
	cs, changed := updateConditions(nil, held, t0)
	if !changed || len(cs) != len(conditionTypes) {
		t.Fatalf("first update: %v, %d conditions", changed, len(cs))
	}
	if c := find(cs, corev1.NamespaceDeletionDiscoveryFailure); c.Status != corev1.ConditionFalse || c.Reason != "ResourcesDiscovered" {
		t.Errorf("fine condition %+v", c)
	}
	if _, changed := updateConditions(cs, held, t1); changed {
		t.Error("the same pass changed the conditions")
	}
	more := (&pass{remaining: map[string]int{"a.": 2}, finalizers: map[string]int{"f": 2}}).conditions()
	cs, _ = updateConditions(cs, more, t1)
	if c := find(cs, corev1.NamespaceFinalizersRemaining); !c.LastTransitionTime.Time.Equal(t0) || c.Message == "" {
		t.Errorf("message change moved the transition time: %+v", c)
	}
	cs, _ = updateConditions(cs, nil, t1)
	if c := find(cs, corev1.NamespaceFinalizersRemaining); !c.LastTransitionTime.Time.Equal(t1) || c.Status != corev1.ConditionFalse || c.Reason != "ContentHasNoFinalizers" {
		t.Errorf("status change: %+v", c)
	}
}

// TestCacheForced: a namespace this replica marked for deletion is not
// trusted Active for forceTTL.
func TestCacheForced(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newCache(func() time.Time { return now })
	c.Replace([]engine.WatchEvent{{Type: storage.EventAdded, Object: []byte(`{"metadata":{"name":"a"},"status":{"phase":"Active"}}`)}})
	if p, ok := c.phase("a"); !ok || p != corev1.NamespaceActive {
		t.Fatalf("phase(a) = %q, %v", p, ok)
	}
	c.force("a")
	if _, ok := c.phase("a"); ok {
		t.Fatal("a forced namespace was trusted")
	}
	c.Apply(engine.WatchEvent{Type: storage.EventModified, Object: []byte(`{"metadata":{"name":"a","deletionTimestamp":"x"},"status":{"phase":"Active"}}`)})
	if p, ok := c.phase("a"); !ok || p != corev1.NamespaceTerminating {
		t.Fatalf("phase(a) after the mark = %q, %v", p, ok)
	}
	now = now.Add(forceTTL + time.Second)
	c.Apply(engine.WatchEvent{Type: storage.EventAdded, Object: []byte(`{"metadata":{"name":"b"}}`)})
	if _, ok := c.phase("b"); !ok || c.anyForced.Load() && c.isForced("b") {
		t.Fatal("b not trusted")
	}
	c.Apply(engine.WatchEvent{Type: storage.EventDeleted, Object: []byte(`{"metadata":{"name":"b"}}`)})
	if _, ok := c.phase("b"); ok {
		t.Fatal("deleted namespace still cached")
	}
}
