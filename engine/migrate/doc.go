// Package migrate owns storage version migration: rewriting the stored
// objects of a resource that are not in its storage version, the progress
// it keeps in storage, the count of stored objects by version, and the
// Runner that migrates the served registry in the background and follows
// schema reloads.
//
// An object is stored in the storage version its resource had when it was
// last written; after the storage version changes (a schema file moves
// storage: true), the objects written before stay in the old one. The
// engine reads an object from whatever version it is in, so nothing
// breaks, but the old version can only be removed once no object is
// stored in it. A migration rewrites them: per resource, it pages through
// the keys, converts each object that is not in the storage version and
// writes it back if its revision is still the one read. A concurrent write
// wins: the migration reads the object again and rewrites it only if it is
// still in an old version. Nothing but the conversion changes (metadata,
// generation and managed fields stay; the resourceVersion moves, as with
// any write).
//
// Two specd replicas may migrate one resource at once: every write is
// conditional on the revision read, so each object is rewritten once, by
// whichever replica gets there first, and the other finds it done.
//
// Progress is kept in storage (state.go), so a migration that is stopped
// continues after the last key it finished, and one that completed is not
// run again for the same storage version.
//
// The package rewrites through engine.Upkeep, the raw access beneath a
// Store; StoredObjects reads which versions objects are stored in from
// the storage and the keys alone, before any Store exists.
package migrate
