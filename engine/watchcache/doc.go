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
package watchcache
