package engine

import (
	"strings"

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

// DefaultPrefix is the prefix of every key when none is given.
const DefaultPrefix = "/specd/"

// Keys is where objects are stored: under
// <Prefix><group>/<plural>/<namespace>/<name>, with no namespace segment
// for a cluster-scoped resource. A resource whose storage another
// resource serves (schemas.Resource.StoredWith) is stored under that one.
// The watch caches, the migration and the stored-version reads find the
// objects by it, apart from a Store.
type Keys struct {
	// Prefix starts every key; DefaultPrefix when empty.
	Prefix string
}

// prefix is k.Prefix or DefaultPrefix.
func (k Keys) prefix() string {
	if k.Prefix == "" {
		return DefaultPrefix
	}
	return k.Prefix
}

// Object is where one object is stored.
func (k Keys) Object(r *schemas.Resource, namespace, name string) string {
	r = r.StorageResource()
	if r.Namespaced() {
		return k.prefix() + GroupKey(r.Group) + "/" + r.Plural + "/" + namespace + "/" + name
	}
	return k.prefix() + GroupKey(r.Group) + "/" + r.Plural + "/" + name
}

// Namespace is the key prefix of r's objects in namespace, or of every
// object of r when namespace is "" or r is cluster-scoped.
func (k Keys) Namespace(r *schemas.Resource, namespace string) string {
	r = r.StorageResource()
	if r.Namespaced() && namespace != "" {
		return k.prefix() + GroupKey(r.Group) + "/" + r.Plural + "/" + namespace + "/"
	}
	return k.prefix() + GroupKey(r.Group) + "/" + r.Plural + "/"
}

// Resource is the key prefix of every object of r, in every namespace:
// the name of r's watch cache.
func (k Keys) Resource(r *schemas.Resource) string { return k.Namespace(r, "") }

// ref names the object of rv stored at key, which Object made.
func (k Keys) ref(rv *schemas.ResourceVersion, key string) Ref {
	rest := strings.TrimPrefix(key, k.Resource(rv.Resource))
	namespace, name, namespaced := strings.Cut(rest, "/")
	if !namespaced {
		namespace, name = "", rest
	}
	return Ref{Version: rv, Namespace: namespace, Name: name}
}
