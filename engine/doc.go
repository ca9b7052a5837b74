// Package engine is specd's resource machinery: the write pipeline that turns
// a request body into a stored object (decode, default, convert, prepare
// metadata, validate, persist) and the read path that serves stored bytes.
//
// Objects stay JSON bytes. The engine decodes a body only to prune, default
// and validate it, and touches stored bytes with gjson/sjson on the read
// path. Storage is any implementation of the Storage interface; etcdstorage
// is the one specd ships.
//
// Each object is stored once, in its resource's storage version, under
// <prefix><group>/<plural>/<namespace>/<name> (no namespace segment for
// cluster-scoped resources). Its resourceVersion is the etcd revision of
// its last write: never part of the stored bytes, it is inserted on read.
// A list joins the stored items as they are; continue tokens carry the
// snapshot revision, so every page of a list reads the same snapshot.
//
// One file per verb: create.go, get.go, list.go, update.go, delete.go,
// watch.go. Watches, and the lists that may be served from memory, go
// through a Cache (engine/watchcache): one storage watch per resource
// feeding the stored bytes of its objects and a window of recent events.
// storagetest holds the conformance suite every Storage must pass.
//
// Errors returned by Store are *k8s.io/apimachinery/pkg/api/errors.StatusError
// values, so the server can write them as Kubernetes Status objects as they
// are.
package engine
