package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/specd-io/specd/engine/storage"

	"github.com/specd-io/specd/schemas"
)

// migrationState is how far the migration of one resource got, kept in
// storage beside the objects so that a restarted specd (or another
// replica) continues it.
type migrationState struct {
	// StorageVersion is the version the objects are being moved to; a
	// state for another version is stale: that migration starts over.
	StorageVersion string `json:"storageVersion"`
	// LastKey is the last key of the last page finished.
	LastKey string `json:"lastKey,omitempty"`
	// Done: every object was found in, or rewritten to, StorageVersion.
	Done bool `json:"done,omitempty"`
	// Failed counts the objects left in an old version so far in this
	// pass; a pass with failures is not done.
	Failed int64 `json:"failed,omitempty"`
	// Updated is when the state was saved, for people reading etcd.
	Updated string `json:"updated,omitempty"`
}

// MigrationStateKey is where the migration state of r is kept: under the
// Store's prefix, beside the resources' own keys and never among them
// ("_" starts no API group name).
func (s *Store) MigrationStateKey(r *schemas.Resource) string {
	return s.migrationStatePrefix() + r.Group + "/" + r.Plural
}

func (s *Store) migrationStatePrefix() string { return s.prefix + "_storage-migrations/" }

// ForgetStaleMigrations deletes the recorded state of every resource of
// reg whose migration was to another version than its storage version
// now, and returns their keys. Such a state says nothing any more: since
// the storage version moved away from the state's version, clients have
// written objects in the new one. Kept, a state that says done would be
// believed if the storage version came back, and the objects written
// meanwhile would stay in the other version for good. Call it before
// clients write with reg's storage versions (specd does at start and
// when a reload moves a storage version), after stopping any migration
// to reg's predecessor, which could save its state again. One read of
// every state, and a write only for a stale one.
func (s *Store) ForgetStaleMigrations(ctx context.Context, reg *schemas.Registry) ([]string, error) {
	prefix := s.migrationStatePrefix()
	var forgotten []string
	err := eachPage(ctx, s.rawStorage(), prefix, storage.ListOptions{Limit: DefaultMigrationPage}, false, "read the migration states", func(page storage.ListResult) error {
		for _, kv := range page.Items {
			group, plural, _ := strings.Cut(strings.TrimPrefix(kv.Key, prefix), "/")
			g := reg.Group(group)
			if g == nil {
				continue // not served: no object of it is written
			}
			r := g.Resource(plural)
			if r == nil || r.StorageVersion == "" {
				continue
			}
			gone, err := s.forgetStaleState(ctx, r, kv)
			if err != nil {
				return err
			}
			if gone {
				forgotten = append(forgotten, kv.Key)
			}
		}
		return nil
	})
	return forgotten, err
}

// forgetStaleState deletes the state kv of r if it is for another version
// than r's storage version, unless it changed since it was read; then it
// reads it again.
func (s *Store) forgetStaleState(ctx context.Context, r *schemas.Resource, kv storage.KeyValue) (bool, error) {
	raw := s.rawStorage()
	for attempt := 1; attempt <= stateAttempts; attempt++ {
		var st migrationState
		if json.Unmarshal(kv.Value, &st) == nil && st.StorageVersion == r.StorageVersion {
			return false, nil
		}
		_, err := raw.Delete(ctx, kv.Key, kv.ModRevision)
		switch {
		case err == nil:
			s.log.Info("storage migration: forgot the state of a migration to another version",
				"resource", r.GroupResource(), "storageVersion", r.StorageVersion, "stateVersion", st.StorageVersion)
			return true, nil
		case errors.Is(err, storage.ErrKeyNotFound):
			return false, nil
		case !errors.Is(err, storage.ErrConflict):
			return false, fmt.Errorf("engine: forget migration state %s: %w", kv.Key, err)
		}
		if kv, err = raw.Get(ctx, kv.Key); errors.Is(err, storage.ErrKeyNotFound) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("engine: read migration state %s: %w", kv.Key, err)
		}
	}
	return false, fmt.Errorf("engine: forget migration state %s: %w", kv.Key, storage.ErrConflict)
}

// loadMigrationState reads r's state; the zero state when there is none.
// An unreadable state is dropped: the migration starts over, which is
// always safe.
func (s *Store) loadMigrationState(ctx context.Context, r *schemas.Resource) (migrationState, error) {
	key := s.MigrationStateKey(r)
	kv, err := s.rawStorage().Get(ctx, key)
	if errors.Is(err, storage.ErrKeyNotFound) {
		return migrationState{}, nil
	}
	if err != nil {
		return migrationState{}, fmt.Errorf("engine: read migration state %s: %w", key, err)
	}
	var st migrationState
	if err := json.Unmarshal(kv.Value, &st); err != nil {
		s.log.Warn("storage migration: unreadable state; starting over", "key", key, "err", err)
		return migrationState{}, nil
	}
	return st, nil
}

// stateAttempts bounds the retries of a state write that races with
// another replica's.
const stateAttempts = 8

// saveMigrationState writes st unless the stored state is ahead of it:
// when two replicas migrate one resource, the state never moves back
// (a lower LastKey, or in progress after done).
func (s *Store) saveMigrationState(ctx context.Context, r *schemas.Resource, st migrationState) error {
	key := s.MigrationStateKey(r)
	st.Updated = s.now().UTC().Format(time.RFC3339)
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("engine: encode migration state: %w", err)
	}
	raw := s.rawStorage()
	for attempt := 1; attempt <= stateAttempts; attempt++ {
		kv, err := raw.Get(ctx, key)
		switch {
		case errors.Is(err, storage.ErrKeyNotFound):
			_, err = raw.Create(ctx, key, b)
			if errors.Is(err, storage.ErrKeyExists) {
				continue
			}
		case err != nil:
		default:
			var cur migrationState
			if json.Unmarshal(kv.Value, &cur) == nil && cur.ahead(st) {
				return nil
			}
			_, err = raw.Update(ctx, key, b, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) {
				continue
			}
		}
		if err != nil {
			return fmt.Errorf("engine: save migration state %s: %w", key, err)
		}
		return nil
	}
	return fmt.Errorf("engine: save migration state %s: %w", key, storage.ErrConflict)
}

// ahead reports whether the stored state cur is further than st, which
// then must not replace it.
func (cur migrationState) ahead(st migrationState) bool {
	if cur.StorageVersion != st.StorageVersion || st.Done {
		return false
	}
	return cur.Done || (st.LastKey != "" && cur.LastKey > st.LastKey)
}
