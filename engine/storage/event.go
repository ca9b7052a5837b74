package storage

import (
	"sync"
	"sync/atomic"
)

// EventType says what an Event reports.
type EventType uint8

const (
	// EventAdded: Key was created with Value.
	EventAdded EventType = iota + 1
	// EventModified: Key's value changed from PrevValue to Value.
	EventModified
	// EventDeleted: Key was deleted; Value is what it held.
	EventDeleted
	// EventBookmark: nothing changed; every event up to Revision was sent.
	// Only a watch cache sends it.
	EventBookmark
)

// String is the Kubernetes name of the event type.
func (t EventType) String() string {
	switch t {
	case EventAdded:
		return "ADDED"
	case EventModified:
		return "MODIFIED"
	case EventDeleted:
		return "DELETED"
	case EventBookmark:
		return "BOOKMARK"
	}
	return "ERROR"
}

// Event is one change seen by a watch, in storage bytes.
type Event struct {
	Type EventType
	Key  string
	// Value is the new value, or for EventDeleted the value deleted.
	Value []byte
	// Revision is the revision of the change (for a delete, the delete's
	// own revision, as kube-apiserver reports it).
	Revision int64
	// PrevValue is the value before the change (EventModified, and
	// EventDeleted where it equals Value), when the source knows it.
	PrevValue []byte
	// Err, on the last event of a watch, says why it ended; the event
	// carries nothing else. It wraps ErrCompacted when the history asked
	// for is gone.
	Err error
	// Encoded, when set, is shared by every watcher of this event: the
	// object as served in each version, made once (a watch cache sets it).
	Encoded *Encodings
}

// Encodings memoizes an event's object per API version. Most watchers of
// a resource use one version: its encoding is read without a lock.
type Encodings struct {
	first atomic.Pointer[encoding]
	mu    sync.Mutex
	more  map[string][]byte
}

type encoding struct {
	apiVersion string
	b          []byte
}

// Get returns the encoding for apiVersion, making it with build once.
func (e *Encodings) Get(apiVersion string, build func() ([]byte, error)) ([]byte, error) {
	if f := e.first.Load(); f != nil && f.apiVersion == apiVersion {
		return f.b, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if f := e.first.Load(); f != nil && f.apiVersion == apiVersion {
		return f.b, nil
	}
	if b, ok := e.more[apiVersion]; ok {
		return b, nil
	}
	b, err := build()
	if err != nil {
		return nil, err
	}
	if e.first.Load() == nil {
		e.first.Store(&encoding{apiVersion: apiVersion, b: b})
		return b, nil
	}
	if e.more == nil {
		e.more = make(map[string][]byte, 1)
	}
	e.more[apiVersion] = b
	return b, nil
}
