package engine

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/storage"
)

// recording is a Storage that records which view wrote each key.
type recording struct {
	storage.Storage // nil: only writes are called
	view            string
	writes          map[string]string
}

func (r *recording) Create(_ context.Context, key string, _ []byte) (int64, error) {
	r.writes[key] = r.view
	return 1, nil
}

func (r *recording) Update(_ context.Context, key string, _ []byte, _ int64) (int64, error) {
	r.writes[key] = r.view + " update"
	return 2, nil
}

type recordingExpirer struct{ *recording }

func (r recordingExpirer) Expiring(ttl time.Duration) storage.Storage {
	return &recording{view: ttl.String(), writes: r.writes}
}

func TestExpireKeysRoutes(t *testing.T) {
	base := recordingExpirer{&recording{view: "plain", writes: map[string]string{}}}
	st := expireKeys(base, "/p/", map[string]time.Duration{"events": time.Hour, "leases.coordination.k8s.io": 0,
		"gizmos.example.com": time.Minute}, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	for _, key := range []string{"/p/core/events/ns/a", "/p/core/eventsx/ns/a", "/p/events.k8s.io/events/ns/a",
		"/p/example.com/gizmos/g", "/p/coordination.k8s.io/leases/ns/l"} {
		if _, err := st.Create(ctx, key, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Update(ctx, "/p/core/events/ns/b", nil, 1); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/p/core/events/ns/a":                "1h0m0s",
		"/p/core/events/ns/b":                "1h0m0s update",
		"/p/core/eventsx/ns/a":               "plain",
		"/p/events.k8s.io/events/ns/a":       "plain",
		"/p/example.com/gizmos/g":            "1m0s",
		"/p/coordination.k8s.io/leases/ns/l": "plain",
	}
	for key, view := range want {
		if got := base.writes[key]; got != view {
			t.Errorf("%s written by %q, want %q", key, got, view)
		}
	}
}

func TestExpireKeysUnneeded(t *testing.T) {
	base := &recording{view: "plain", writes: map[string]string{}}
	log := slog.New(slog.DiscardHandler)
	if st := expireKeys(base, "/p/", nil, log); st != storage.Storage(base) {
		t.Errorf("no TTL: the storage was wrapped")
	}
	if st := expireKeys(base, "/p/", map[string]time.Duration{"events": time.Hour}, log); st != storage.Storage(base) {
		t.Errorf("a storage that cannot expire keys was wrapped")
	}
}
