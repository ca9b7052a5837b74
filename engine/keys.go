package engine

import (
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// CoreGroupKey is the key segment of the core group (""), defined with
// the storage interface so that storage layers (encryption) route by it.
const CoreGroupKey = storage.CoreGroupKey

// GroupKey is the key segment of group: the group's name, or CoreGroupKey.
func GroupKey(group string) string {
	if group == "" {
		return CoreGroupKey
	}
	return group
}

// objectKey is where one object is stored:
// <prefix><group>/<plural>/<namespace>/<name>, or without the namespace
// segment for cluster-scoped resources (<group> is GroupKey's). The group
// and plural are those of the resource whose storage r serves
// (schemas.Resource.StoredWith).
func (s *Store) objectKey(r *schemas.Resource, namespace, name string) string {
	r = r.StorageResource()
	if r.Namespaced() {
		return s.prefix + GroupKey(r.Group) + "/" + r.Plural + "/" + namespace + "/" + name
	}
	return s.prefix + GroupKey(r.Group) + "/" + r.Plural + "/" + name
}

// listPrefix is the prefix of every object a list returns. It ends with a
// slash, so the objects of namespace "a" never include those of "ab".
func (s *Store) listPrefix(r *schemas.Resource, namespace string) string {
	r = r.StorageResource()
	if r.Namespaced() && namespace != "" {
		return s.prefix + GroupKey(r.Group) + "/" + r.Plural + "/" + namespace + "/"
	}
	return s.prefix + GroupKey(r.Group) + "/" + r.Plural + "/"
}

// defaultPrefix is Options.Prefix when empty.
const defaultPrefix = "/specd/"

func prefixOr(prefix string) string {
	if prefix == "" {
		return defaultPrefix
	}
	return prefix
}

// CacheKeyOf is Store.ResourcePrefix of a Store with Options.Prefix prefix, for
// the cache of that Store: it names caches before the Store that is built
// on it exists.
func CacheKeyOf(prefix string) func(*schemas.Resource) string {
	s := &Store{prefix: prefixOr(prefix)}
	return s.ResourcePrefix
}
