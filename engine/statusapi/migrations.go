package statusapi

import (
	"context"
	"time"

	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
)

type migrationObject = migrate.Progress

type migrationStatus struct {
	Group          string `json:"group"`
	Resource       string `json:"resource"`
	StorageVersion string `json:"storageVersion"`
	Done           bool   `json:"done"`
	Failed         int64  `json:"failed"`
	LastKey        string `json:"lastKey,omitempty"`
	Updated        string `json:"updated,omitempty"`
}

// migrationObjects are the StorageMigration objects, named plural.group
// (plural alone for the core group).
func migrationObjects(ms []migrationObject) map[string]any {
	out := make(map[string]any, len(ms))
	for _, m := range ms {
		name := m.Resource
		if m.Group != "" {
			name += "." + m.Group
		}
		out[name] = migrationStatus{Group: m.Group, Resource: m.Resource, StorageVersion: m.StorageVersion,
			Done: m.Done, Failed: m.Failed, LastKey: m.LastKey, Updated: m.Updated}
	}
	return out
}

// retryAfter is how long the watch of the migration states waits before
// it lists them again after an error.
const retryAfter = time.Second

// watchMigrations sends every migration state kept in storage to out,
// then all of them again at each change, until ctx ends. It reads the
// same keys on every replica, so every replica answers alike.
func watchMigrations(ctx context.Context, cfg Config, out chan<- []migrationObject) {
	prefix := migrate.StatePrefix(cfg.Keys)
	for ctx.Err() == nil {
		states, rev, err := listMigrations(ctx, cfg.Storage, prefix)
		if err == nil {
			send(ctx, out, states)
			err = followMigrations(ctx, cfg.Storage, prefix, rev, states, out)
		}
		if err != nil && ctx.Err() == nil {
			cfg.Logger.Warn("status.specd.io: reading the migration states; trying again", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(retryAfter):
			}
		}
	}
}

func listMigrations(ctx context.Context, st storage.Storage, prefix string) (map[string]migrationObject, int64, error) {
	res, err := st.List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		return nil, 0, err
	}
	states := map[string]migrationObject{}
	for _, kv := range res.Items {
		if p, err := migrate.ParseProgress(prefix, kv.Key, kv.Value); err == nil {
			states[kv.Key] = p
		}
	}
	return states, res.Revision, nil
}

// followMigrations applies each change after rev to states and sends
// them; it returns when the watch ends.
func followMigrations(ctx context.Context, st storage.Storage, prefix string, rev int64, states map[string]migrationObject, out chan<- []migrationObject) error {
	for ev := range st.Watch(ctx, prefix, rev) {
		switch {
		case ev.Err != nil:
			return ev.Err
		case ev.Type == storage.EventDeleted:
			delete(states, ev.Key)
		case ev.Type == storage.EventAdded || ev.Type == storage.EventModified:
			if p, err := migrate.ParseProgress(prefix, ev.Key, ev.Value); err == nil {
				states[ev.Key] = p
			}
		default:
			continue
		}
		send(ctx, out, states)
	}
	return ctx.Err()
}

// send hands the publisher a copy of states, replacing one it has not
// taken yet: only the latest matters.
func send(ctx context.Context, out chan<- []migrationObject, states map[string]migrationObject) {
	list := make([]migrationObject, 0, len(states))
	for _, p := range states {
		list = append(list, p)
	}
	select {
	case out <- list:
	case <-ctx.Done():
	}
}
