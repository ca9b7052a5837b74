package migrate

import (
	"context"
	"strings"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// StoredVersion is how many objects of a resource are stored in one
// version, and the key of the first in key order (namespace/name, or
// name), to name one in a message.
type StoredVersion struct {
	Count   int64
	Example string
}

// StoredVersions reads every object of r from store and counts them by
// the version they are stored in: the version of each object's own
// apiVersion, which is not always r's storage version (an object keeps
// the storage version of its last write until the migration rewrites
// it). The keys are read page by page from one snapshot; nothing is
// written. Whether a version may be removed is decided on this: the
// safe-evolution gate of a reload and `specd check --etcd-servers` both
// ask it.
func StoredVersions(ctx context.Context, store Store, r *schemas.Resource) (map[string]StoredVersion, error) {
	prefix := store.ResourcePrefix(r)
	out := map[string]StoredVersion{}
	err := eachPage(ctx, store.RawStorage(), prefix, storage.ListOptions{Limit: DefaultPageSize}, true,
		"read the objects of "+r.GroupResource(), func(page storage.ListResult) error {
			for _, kv := range page.Items {
				v := versionOf(kv.Value)
				st := out[v]
				if st.Count == 0 {
					st.Example = strings.TrimPrefix(kv.Key, prefix)
				}
				st.Count++
				out[v] = st
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}
