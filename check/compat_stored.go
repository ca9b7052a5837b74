package check

import (
	"context"
	"fmt"

	"github.com/specd-io/specd/schemas"
)

// StoredObjects tells in which versions the objects of a resource are
// stored: `specd check --etcd-servers` reads it from etcd.
type StoredObjects interface {
	StoredVersions(ctx context.Context, res *schemas.Resource) (map[string]Stored, error)
}

// Stored is how many objects of a resource are stored in one version, and
// the key of one of them (namespace/name, or name).
type Stored struct {
	Count   int64
	Example string
}

// storedRemoved: a version that is no longer declared loses the objects
// stored in it. The old storage version is an error when objects are
// stored in it, or when that cannot be read, and a warning when none is;
// any other removed version is an error when objects are still stored in
// it (from before a storage version change whose migration is not done),
// or when that cannot be read.
func (r *comparer) storedRemoved(old, next *schemas.Resource) {
	var removed []*schemas.ResourceVersion
	for _, ov := range old.Versions {
		if next == nil || next.Version(ov.Version) == nil {
			removed = append(removed, ov)
		}
	}
	if len(removed) == 0 {
		return
	}
	stored, err := r.stored.StoredVersions(r.ctx, old)
	for _, ov := range removed {
		isStorage := ov.Version == old.StorageVersion
		st := stored[ov.Version]
		switch {
		case err != nil && isStorage:
			r.add(Error, "storage-version-removed", ov.File, ov.Pointer, ov, "",
				"%s is the storage version of %s and is removed: objects stored in it could no longer be read, and whether there are any is unknown: %v",
				ov.Version, old.GroupResource(), err)
		case err != nil:
			r.add(Error, "storage-version-removed", ov.File, ov.Pointer, ov, "",
				"%s of %s is removed: objects still stored in it (from before a storage version change) could no longer be read, and whether there are any is unknown: %v",
				ov.Version, old.GroupResource(), err)
		case st.Count > 0:
			r.add(Error, "storage-version-removed", ov.File, ov.Pointer, ov, "",
				"%s is removed but %d object(s) of %s are stored in it (%s%s): they can no longer be read; keep it until they are migrated to %s",
				ov.Version, st.Count, old.GroupResource(), st.Example, others(st.Count), storageOf(next))
		case isStorage:
			r.add(Warning, "storage-version-removed", ov.File, ov.Pointer, ov, "",
				"%s, the storage version of %s, is removed: no object is stored in it (read from etcd)",
				ov.Version, old.GroupResource())
		}
	}
}

func others(n int64) string {
	if n > 1 {
		return fmt.Sprintf(" and %d more", n-1)
	}
	return ""
}
