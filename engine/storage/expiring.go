package storage

import "time"

// Expirer is implemented by a Storage whose writes can expire, as
// kube-apiserver's events do. It is optional: a Store that needs it for a
// resource asks for it with a type assertion.
type Expirer interface {
	// Expiring returns a Storage on the same keys whose Create and Update
	// make the key they write expire at least ttl after the write, unless
	// it is written again: the storage then deletes it, and its watchers
	// see an EventDeleted with the value it held. An expired key may live
	// a little longer than ttl (for etcd, up to a lease's reuse window).
	// Get, List, Delete and Watch are the receiver's.
	Expiring(ttl time.Duration) Storage
}
