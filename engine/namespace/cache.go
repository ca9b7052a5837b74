package namespace

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// forceTTL is how long a namespace this replica marked for deletion is
// read from storage rather than from the cache, whose watch may not have
// brought the mark yet (kube's forceLiveLookupTTL).
const forceTTL = 30 * time.Second

// cache is every namespace's phase, fed by a watch (a informer.Feed).
type cache struct {
	mu     sync.RWMutex
	phases map[string]corev1.NamespacePhase
	synced atomic.Bool

	forcedMu sync.Mutex
	forced   map[string]time.Time // name: until when
	// anyForced is len(forced) > 0: the check on every write reads it
	// without the lock.
	anyForced atomic.Bool
	now       func() time.Time

	// deleting is closed once a namespace is seen marked for deletion.
	deleting     chan struct{}
	deletingOnce sync.Once
}

func newCache(now func() time.Time) *cache {
	return &cache{phases: map[string]corev1.NamespacePhase{}, forced: map[string]time.Time{}, now: now, deleting: make(chan struct{})}
}

// note closes deleting when phase is Terminating.
func (c *cache) note(phase corev1.NamespacePhase) {
	if phase == corev1.NamespaceTerminating {
		c.deletingOnce.Do(func() { close(c.deleting) })
	}
}

// phase returns the cached phase of name; ok is false when the cache does
// not know it, or must not be trusted for it (forced).
func (c *cache) phase(name string) (phase corev1.NamespacePhase, ok bool) {
	c.mu.RLock()
	phase, ok = c.phases[name]
	c.mu.RUnlock()
	if ok && phase == corev1.NamespaceActive && c.isForced(name) {
		return "", false
	}
	return phase, ok
}

// Replace sets every namespace at once.
func (c *cache) Replace(objects []engine.WatchEvent) {
	phases := make(map[string]corev1.NamespacePhase, len(objects))
	for _, ev := range objects {
		name, phase := namePhase(ev.Object)
		phases[name] = phase
		c.note(phase)
	}
	c.mu.Lock()
	c.phases = phases
	c.mu.Unlock()
	c.synced.Store(true)
}

// Apply applies one change.
func (c *cache) Apply(ev engine.WatchEvent) {
	name, phase := namePhase(ev.Object)
	c.note(phase)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Type == storage.EventDeleted {
		delete(c.phases, name)
		return
	}
	c.phases[name] = phase
}

// namePhase reads a Namespace's name and phase; one marked for deletion
// is Terminating whatever its phase says.
func namePhase(obj []byte) (string, corev1.NamespacePhase) {
	r := gjson.GetManyBytes(obj, "metadata.name", "status.phase", "metadata.deletionTimestamp")
	if r[1].Str == string(corev1.NamespaceTerminating) || r[2].Exists() {
		return r[0].Str, corev1.NamespaceTerminating
	}
	return r[0].Str, corev1.NamespaceActive
}

// force has name read from storage for forceTTL: this replica has just
// marked it for deletion.
func (c *cache) force(name string) {
	c.note(corev1.NamespaceTerminating)
	c.forcedMu.Lock()
	defer c.forcedMu.Unlock()
	now := c.now()
	for n, until := range c.forced {
		if now.After(until) {
			delete(c.forced, n)
		}
	}
	c.forced[name] = now.Add(forceTTL)
	c.anyForced.Store(true)
}

func (c *cache) isForced(name string) bool {
	if !c.anyForced.Load() {
		return false
	}
	c.forcedMu.Lock()
	defer c.forcedMu.Unlock()
	until, ok := c.forced[name]
	if ok && c.now().After(until) {
		delete(c.forced, name)
		ok = false
	}
	c.anyForced.Store(len(c.forced) > 0)
	return ok
}
