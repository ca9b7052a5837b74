// Package engine is specd's resource machinery: the write pipeline that turns
// a request body into a stored object (decode, default, convert, prepare
// metadata, validate, persist) and the read path that serves stored bytes.
//
// Objects stay JSON bytes. The engine decodes a body only to prune, default
// and validate it, and touches stored bytes with gjson/sjson on the read
// path. Storage is any implementation of storage.Storage (engine/storage, the
// contract beneath the engine); etcdstorage is the one specd ships.
//
// Each object is stored once, in its resource's storage version, under
// <prefix><group>/<plural>/<namespace>/<name> (no namespace segment for
// cluster-scoped resources; <group> is "core" for the core group, ""). Its resourceVersion is the etcd revision of
// its last write: never part of the stored bytes, it is inserted on read.
// A list joins the stored items as they are; continue tokens carry the
// snapshot revision, so every page of a list reads the same snapshot.
// An object written before the storage version changed stays in the
// version it was written in, which reads convert from, until the storage
// migration (engine/migrate) rewrites it. The conversion bookkeeping
// annotation is hidden from clients and kept across their writes
// (bookkeeping.go).
//
// Schemas may bind plugins to a resource (x-specd-hooks): a write calls the
// defaulting plugin of its version after the schema's defaults, and the
// validation plugin on the object converted to the storage version, through
// the hook.Admission the Store is made with (admission.go). Reconcilers run apart,
// in engine/controller. What kube-apiserver does to its built-in kinds is
// given to the Store by the packages that own it, per resource: Mutators
// change a written object as it is decoded (mutate.go; a Secret's
// stringData, engine/configdata), WriteChecks may refuse it before it is
// stored (engine/rbac's escalation checks, engine/configdata's validation).
//
// The files read top to bottom; none uses a file above it (hack/shape
// -files engine draws them):
//
//   - the verbs, a file each: create.go, get.go, list.go (and
//     watch_list.go, listselect.go), update.go, patch.go (and apply.go),
//     delete.go, deletecollection.go, watch.go, the scale subresource
//     (scale.go), and the Upkeep (upkeep.go, upkeep_gc.go);
//   - the steps they share: reading one stored object (read.go), the
//     pipeline every write of a stored object goes through (replace.go);
//   - the Store, which composes the parts below (store.go);
//   - the parts of the write path: admission (admission.go), mutation
//     (mutate.go), Strategies (strategy.go), a patch decoded and applied
//     (patcher.go), conversion (conversion.go), managed fields
//     (managedfields.go), the conversion bookkeeping (bookkeeping.go),
//     metadata (meta.go), decoding (decode.go), finalizers
//     (finalizers.go), the write being made (write.go);
//   - the surface (surface.go) and the values it takes (requests.go),
//     and the helpers: keys, errors, selectors, continue tokens, limits.
//
// Watches, and the lists that may be served from memory, go through a
// Cache (engine/watchcache): one storage watch per resource feeding the
// stored bytes of its objects and a window of recent events.
//
// The root package declares the engine's surface once (surface.go):
// Reader, Writer, Watcher and Subresources, composed as each caller needs
// them (Objects is all of them), on one request value per call (Ref; a
// write's WriteRequest or PatchRequest), a status or scale write being a
// subresource of the Ref like any other. The upkeep that background work
// does beyond the verbs is Upkeep's (upkeep.go, upkeep_gc.go), handed only
// to garbage collection (engine/gc), storage version migration
// (engine/migrate) and namespace adoption (engine/namespace). Each concern
// beside the verbs has a package of its own, which the root never
// imports: those, the watch caches (engine/watchcache), the runner of
// background work (engine/background), the reconcile loops
// (engine/controller), the built-in kinds' behaviour (engine/namespace,
// engine/crd, engine/rbac, engine/configdata), and the storage
// implementation (engine/etcdstorage); the storage contract beneath it
// (engine/storage) it does import.
//
// A built-in resource whose kube-apiserver behaviour its schema cannot
// say (a Namespace's finalizers and Terminating phase) has a Strategy
// (Options.Strategies) that every write path calls; every create of a
// namespaced object passes Options.NamespaceCheck first.
//
// An error the client caused is a *k8s.io/apimachinery/pkg/api/errors.StatusError
// the server writes as it is (404, 409, 422, ...). A failure of the
// engine or its storage is a plain error, wrapped with %w and its context:
// the server's one writer answers it with a 500 InternalError, and logs
// and counts it.
package engine
