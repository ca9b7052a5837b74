package migrate_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/internal/gizmotest"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// listCounter counts the lists of each prefix.
type listCounter struct {
	storage.Storage
	mu    sync.Mutex
	lists map[string]int
}

func (s *listCounter) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	s.mu.Lock()
	s.lists[prefix]++
	s.mu.Unlock()
	return s.Storage.List(ctx, prefix, opts)
}

func (s *listCounter) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists[prefix]
}

// TestRunnerSkipsCompleteResources: a reload that serves one resource
// more migrates that one; the objects of a resource already migrated to
// the end in its storage version are not read again (they were, once
// per reload, which made each CRD created cost a read of every object
// of every other resource). A resource whose storage version moves is
// read again (TestRunnerFollowsReloads).
func TestRunnerSkipsCompleteResources(t *testing.T) {
	ctx := t.Context()
	st := &listCounter{Storage: etcdstorage.New(testClient), lists: map[string]int{}}
	w := newTwoWorlds(t, st) // objects in v1, v1's storage version: nothing to move
	v1 := w.v1.Registry
	other := gizmotest.Load(t, gizmotest.NewGroup(), "v1")
	both := schemas.NewRegistry(append(v1.Groups(), other.Registry.Groups()...))
	m := migrate.NewRunner(ctx, w.store.Upkeep(), v1, w.quiet)
	defer background.New(m).Start(ctx)()
	waitDone(t, m)
	keys := w.store.Upkeep().Keys()
	gizmos, others := keys.Resource(w.v1.Resource), keys.Resource(other.Resource)
	if n := st.count(gizmos); n != 1 {
		t.Fatalf("the first migration listed the gizmos %d times, want 1", n)
	}
	if err := m.BeforeSwap(ctx, v1, both); err != nil {
		t.Fatal(err)
	}
	m.AfterSwap(ctx, v1, both)
	waitDone(t, m)
	if n := st.count(others); n != 1 {
		t.Errorf("the new resource was listed %d times, want 1", n)
	}
	if n := st.count(gizmos); n != 1 {
		t.Errorf("the gizmos, complete already, were listed again: %d lists, want 1", n)
	}
}

// waitDone waits until m has migrated its job to the end.
func waitDone(t *testing.T, m *migrate.Runner) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !m.Done() {
		if time.Now().After(deadline) {
			t.Fatal("the migration did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
