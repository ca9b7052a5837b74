package storage

import (
	"context"
	"errors"
)

// CoreGroupKey is the key segment of the core group (""): core objects
// are stored at <prefix>core/<plural>/..., as /specd/core/configmaps/ns/a.
// No other group can take it, since every other group name has a dot.
const CoreGroupKey = "core"

// Storage keeps raw object bytes under keys, with a revision per write.
// Implementations must be safe for concurrent use.
type Storage interface {
	// Create stores value under key if key is absent; ErrKeyExists if not.
	Create(ctx context.Context, key string, value []byte) (revision int64, err error)
	// Get returns the value under key; ErrKeyNotFound if absent.
	Get(ctx context.Context, key string) (KeyValue, error)
	// List returns the values under prefix in key order.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Update replaces the value under key if its revision is still
	// expectedRevision; ErrConflict if it changed, ErrKeyNotFound if absent.
	Update(ctx context.Context, key string, value []byte, expectedRevision int64) (revision int64, err error)
	// Delete removes key and returns what it held. With expectedRevision > 0
	// it deletes only that revision (ErrConflict otherwise).
	Delete(ctx context.Context, key string, expectedRevision int64) (KeyValue, error)
	// Watch streams the changes to the keys under prefix made after
	// afterRevision (0: after the current revision), in revision order,
	// until ctx ends; see Event. If the history after afterRevision is
	// compacted, the one event sent has Err wrapping ErrCompacted. It may
	// send EventBookmark events: every change up to Revision was sent. The
	// channel is closed when the watch ends.
	Watch(ctx context.Context, prefix string, afterRevision int64) <-chan Event
}

// KeyValue is one stored value.
type KeyValue struct {
	Key         string
	Value       []byte
	ModRevision int64
	// Stale reports that Value was stored in a form the storage no
	// longer writes (encrypted with a key that is not the first one
	// configured): a write of the same bytes still rewrites it, as
	// kube-apiserver rewrites a stale value on update.
	Stale bool
}

// ListOptions bound and position a List.
type ListOptions struct {
	// Limit is the most items to return; 0 means all.
	Limit int64
	// StartKey, when set, lists from this key (inclusive) instead of prefix.
	StartKey string
	// Revision, when > 0, reads the snapshot at that revision.
	Revision int64
}

// ListResult is one page of a List.
type ListResult struct {
	Items []KeyValue
	// Revision is the store revision the page was read at.
	Revision int64
	// More reports that items beyond this page exist; Remaining counts them.
	More      bool
	Remaining int64
}

// Storage errors. Implementations wrap them with %w.
var (
	ErrKeyExists   = errors.New("storage: key exists")
	ErrKeyNotFound = errors.New("storage: key not found")
	ErrConflict    = errors.New("storage: revision conflict")
	// ErrCompacted means the requested revision is no longer kept.
	ErrCompacted = errors.New("storage: revision compacted")
	// ErrFutureRevision means a read asked for a revision the storage
	// has not reached; RevisionError carries the numbers.
	ErrFutureRevision = errors.New("storage: revision is in the future")
	// ErrTooLarge means a value is more than one write may carry;
	// SizeError carries the numbers.
	ErrTooLarge = errors.New("storage: value too large")
	// ErrTimeout means the storage did not answer in time. The outcome of
	// a write that fails so is unknown: it may have been applied.
	ErrTimeout = errors.New("storage: request timed out")
	// ErrNoSpace means the storage is full and refuses writes until space
	// is freed (etcd's NOSPACE alarm); reads and deletes still work.
	ErrNoSpace = errors.New("storage: database space exceeded")
)
