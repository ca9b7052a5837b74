package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
	return s.prefix + "_storage-migrations/" + r.Group + "/" + r.Plural
}

// loadMigrationState reads r's state; the zero state when there is none.
// An unreadable state is dropped: the migration starts over, which is
// always safe.
func (s *Store) loadMigrationState(ctx context.Context, r *schemas.Resource) (migrationState, error) {
	key := s.MigrationStateKey(r)
	kv, err := s.rawStorage().Get(ctx, key)
	if errors.Is(err, ErrKeyNotFound) {
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
		case errors.Is(err, ErrKeyNotFound):
			_, err = raw.Create(ctx, key, b)
			if errors.Is(err, ErrKeyExists) {
				continue
			}
		case err != nil:
		default:
			var cur migrationState
			if json.Unmarshal(kv.Value, &cur) == nil && cur.ahead(st) {
				return nil
			}
			_, err = raw.Update(ctx, key, b, kv.ModRevision)
			if errors.Is(err, ErrConflict) {
				continue
			}
		}
		if err != nil {
			return fmt.Errorf("engine: save migration state %s: %w", key, err)
		}
		return nil
	}
	return fmt.Errorf("engine: save migration state %s: %w", key, ErrConflict)
}

// ahead reports whether the stored state cur is further than st, which
// then must not replace it.
func (cur migrationState) ahead(st migrationState) bool {
	if cur.StorageVersion != st.StorageVersion || st.Done {
		return false
	}
	return cur.Done || (st.LastKey != "" && cur.LastKey > st.LastKey)
}
