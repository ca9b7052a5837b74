package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/specd-io/specd/engine"
)

// Progress is the migration state of one resource as kept in storage,
// for what reports it (engine/statusapi's StorageMigration objects):
// every replica reads the same.
type Progress struct {
	// Group and Resource (its plural) name the resource.
	Group, Resource string
	// StorageVersion is the version its objects are being moved to.
	StorageVersion string
	// LastKey is the last key of the last page finished.
	LastKey string
	// Done: every object is in StorageVersion.
	Done bool
	// Failed counts the objects left in an old version in this pass.
	Failed int64
	// Updated is when the state was saved (RFC 3339).
	Updated string
}

// StatePrefix is the key prefix of the migration states of a Store with
// keys: one key per resource under it, <group>/<plural>.
func StatePrefix(keys engine.Keys) string { return keys.Root() + "_storage-migrations/" }

// ParseProgress reads the state stored under key, a key below prefix
// (StatePrefix).
func ParseProgress(prefix, key string, value []byte) (Progress, error) {
	group, plural, ok := strings.Cut(strings.TrimPrefix(key, prefix), "/")
	if !ok || !strings.HasPrefix(key, prefix) {
		return Progress{}, fmt.Errorf("migrate: %s is not a migration state key under %s", key, prefix)
	}
	var st migrationState
	if err := json.Unmarshal(value, &st); err != nil {
		return Progress{}, fmt.Errorf("migrate: migration state %s: %w", key, err)
	}
	if group == engine.GroupKey("") {
		group = ""
	}
	return Progress{Group: group, Resource: plural, StorageVersion: st.StorageVersion, LastKey: st.LastKey,
		Done: st.Done, Failed: st.Failed, Updated: st.Updated}, nil
}
