package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/specd-io/specd/engine"
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

// StateKey is where the migration state of r is kept: under the Store's
// prefix, beside the resources' own keys and never among them ("_"
// starts no API group name).
func (mg *Migrator) StateKey(r *schemas.Resource) string {
	return mg.statePrefix() + engine.GroupKey(r.Group) + "/" + r.Plural
}

func (mg *Migrator) statePrefix() string { return mg.upkeep.Keys().Prefix + "_storage-migrations/" }

// ForgetStale deletes the recorded state of every resource of reg whose
// migration was to another version than its storage version now, and
// returns their keys. Such a state says nothing any more: since the
// storage version moved away from the state's version, clients have
// written objects in the new one. Kept, a state that says done would be
// believed if the storage version came back, and the objects written
// meanwhile would stay in the other version for good. Call it before
// clients write with reg's storage versions (the Runner does when it is
// made and before a reload moves a storage version), after stopping any
// migration to reg's predecessor, which could save its state again. One
// read of every state, and a write only for a stale one.
func (mg *Migrator) ForgetStale(ctx context.Context, reg *schemas.Registry) ([]string, error) {
	prefix := mg.statePrefix()
	var forgotten []string
	err := eachPage(ctx, mg.upkeep.RawStorage(), prefix, storage.ListOptions{Limit: DefaultPageSize}, false, "read the migration states", func(page storage.ListResult) error {
		for _, kv := range page.Items {
			r := resourceNamed(reg, strings.TrimPrefix(kv.Key, prefix))
			if r == nil || r.StorageVersion == "" {
				continue // not served: no object of it is written
			}
			gone, err := mg.forgetStaleState(ctx, r, kv)
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

// resourceNamed is the resource of reg a state key names (group/plural
// after the state prefix); nil when reg has none.
func resourceNamed(reg *schemas.Registry, groupPlural string) *schemas.Resource {
	group, plural, _ := strings.Cut(groupPlural, "/")
	g := reg.Group(group)
	if g == nil {
		return nil
	}
	return g.Resource(plural)
}

// forgetStaleState deletes the state kv of r if it is for another version
// than r's storage version, unless it changed since it was read; then it
// reads it again.
func (mg *Migrator) forgetStaleState(ctx context.Context, r *schemas.Resource, kv storage.KeyValue) (bool, error) {
	raw := mg.upkeep.RawStorage()
	for attempt := 1; attempt <= stateAttempts; attempt++ {
		var st migrationState
		if json.Unmarshal(kv.Value, &st) == nil && st.StorageVersion == r.StorageVersion {
			return false, nil
		}
		_, err := raw.Delete(ctx, kv.Key, kv.ModRevision)
		switch {
		case err == nil:
			mg.log.Info("storage migration: forgot the state of a migration to another version",
				"resource", r.GroupResource(), "storageVersion", r.StorageVersion, "stateVersion", st.StorageVersion)
			return true, nil
		case errors.Is(err, storage.ErrKeyNotFound):
			return false, nil
		case !errors.Is(err, storage.ErrConflict):
			return false, fmt.Errorf("migrate: forget migration state %s: %w", kv.Key, err)
		}
		if kv, err = raw.Get(ctx, kv.Key); errors.Is(err, storage.ErrKeyNotFound) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("migrate: read migration state %s: %w", kv.Key, err)
		}
	}
	return false, fmt.Errorf("migrate: forget migration state %s: %w", kv.Key, storage.ErrConflict)
}

// loadState reads r's state; the zero state when there is none. An
// unreadable state is dropped: the migration starts over, which is always
// safe.
func (mg *Migrator) loadState(ctx context.Context, r *schemas.Resource) (migrationState, error) {
	key := mg.StateKey(r)
	kv, err := mg.upkeep.RawStorage().Get(ctx, key)
	if errors.Is(err, storage.ErrKeyNotFound) {
		return migrationState{}, nil
	}
	if err != nil {
		return migrationState{}, fmt.Errorf("migrate: read migration state %s: %w", key, err)
	}
	var st migrationState
	if err := json.Unmarshal(kv.Value, &st); err != nil {
		mg.log.Warn("storage migration: unreadable state; starting over", "key", key, "err", err)
		return migrationState{}, nil
	}
	return st, nil
}

// stateAttempts bounds the retries of a state write that races with
// another replica's.
const stateAttempts = 8

// saveState writes st unless the stored state is ahead of it: when two
// replicas migrate one resource, the state never moves back (a lower
// LastKey, or in progress after done).
func (mg *Migrator) saveState(ctx context.Context, r *schemas.Resource, st migrationState) error {
	key := mg.StateKey(r)
	st.Updated = time.Now().UTC().Format(time.RFC3339)
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("migrate: encode migration state: %w", err)
	}
	for attempt := 1; attempt <= stateAttempts; attempt++ {
		done, err := mg.trySaveState(ctx, key, st, b)
		if err != nil {
			return fmt.Errorf("migrate: save migration state %s: %w", key, err)
		}
		if done {
			return nil
		}
	}
	return fmt.Errorf("migrate: save migration state %s: %w", key, storage.ErrConflict)
}

// trySaveState writes b, the encoded st, at key once; false when another
// replica wrote the key meanwhile and it should be tried again.
func (mg *Migrator) trySaveState(ctx context.Context, key string, st migrationState, b []byte) (bool, error) {
	raw := mg.upkeep.RawStorage()
	kv, err := raw.Get(ctx, key)
	switch {
	case errors.Is(err, storage.ErrKeyNotFound):
		_, err = raw.Create(ctx, key, b)
		if errors.Is(err, storage.ErrKeyExists) {
			return false, nil
		}
		return err == nil, err
	case err != nil:
		return false, err
	}
	var cur migrationState
	if json.Unmarshal(kv.Value, &cur) == nil && cur.ahead(st) {
		return true, nil
	}
	_, err = raw.Update(ctx, key, b, kv.ModRevision)
	if errors.Is(err, storage.ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// ahead reports whether the stored state cur is further than st, which
// then must not replace it.
func (cur migrationState) ahead(st migrationState) bool {
	if cur.StorageVersion != st.StorageVersion || st.Done {
		return false
	}
	return cur.Done || (st.LastKey != "" && cur.LastKey > st.LastKey)
}
