// Package watchcache keeps the objects of each resource in memory, fed by
// one storage watch per resource, and serves lists and watches from there
// (engine.Cache).
//
// The cache holds the stored bytes as storage returned them, never decoded
// objects: the current value of every key, kept in key order for lists,
// and a bounded window of recent events so that a watch can start from a
// past revision. A value superseded within the window is shared between
// the window and nothing else, so the cache costs little more than the
// JSON it holds.
//
// A resource's cache starts on its first use, not before: a served type
// that nobody lists or watches costs no memory and no storage watch. The
// first use decides where it starts: a watch from revision N lists the
// objects as they were at N and watches storage from N, so that it gets
// every change after N, as from a cache that ran all along (410 Expired
// only when storage has compacted N); a list, or a watch from now, starts
// it at the current revision. A later watch from before that start gets
// the changes in between from a storage watch of its own, then the
// cache's, as from a cache that ran from the server's start (gap.go). A
// cache with no watch open that no request has used for
// Config.IdleTimeout stops; its next use starts it again the same way.
//
// A consistent list (engine.CacheListOptions.Consistent) waits until the
// cache has reached storage's current revision; while lists wait, one
// requester shared by every cache asks storage for progress
// notifications (ProgressRequester, etcd's RequestProgress), so that the
// cache of a resource that has not changed learns the current revision
// in one round trip.
//
// Each watcher has a bounded buffer of events. The cache never waits for a
// watcher: one whose buffer is full is cut off (its watch ends with
// engine.ErrWatchClosed) and the client watches again from the last
// revision it saw, so a slow client can neither stall the others nor make
// the cache grow.
//
// Served follows schema reloads (a serving.Follower): a resource whose
// declaration changed gets a new cache generation, and the watches of the
// one before end, cleanly or, for a resource or version no longer served,
// with a 410 Gone.
package watchcache
