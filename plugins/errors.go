package plugins

import (
	"errors"
	"fmt"
)

// CallError is a call the plugin could not answer: it is not in the
// directory, did not start, died or hung during the call, broke the
// protocol, or its own function failed. A call cut off by its context's
// deadline unwraps to context.DeadlineExceeded.
type CallError struct {
	Plugin string
	Err    error
}

func (e *CallError) Error() string { return fmt.Sprintf("plugin %q: %v", e.Plugin, e.Err) }
func (e *CallError) Unwrap() error { return e.Err }

var (
	// ErrNotFound: no executable of that name in the plugins directory.
	ErrNotFound = errors.New("plugins: no such plugin")
	// ErrClosed: the Host was closed.
	ErrClosed = errors.New("plugins: host closed")
	// ErrCrashed: the plugin process died during the call.
	ErrCrashed = errors.New("plugins: plugin process died")
	// ErrBackoff: the plugin died or failed to start, and the next start
	// is due after the caller's deadline.
	ErrBackoff = errors.New("plugins: plugin failed recently; waiting to start it again")
	// ErrVersion: the plugin speaks another protocol version.
	ErrVersion = errors.New("plugins: incompatible plugin protocol version")
)
