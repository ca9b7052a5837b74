package storage

import "fmt"

// RevisionError is a read at a revision after the storage's current one.
// It is an ErrFutureRevision.
type RevisionError struct {
	Requested, Current int64
}

func (e *RevisionError) Error() string {
	return fmt.Sprintf("storage: revision %d is in the future, current is %d", e.Requested, e.Current)
}

// Is makes a RevisionError an ErrFutureRevision.
func (e *RevisionError) Is(target error) bool { return target == ErrFutureRevision }

// SizeError is a value over the size one write may carry. It is an
// ErrTooLarge. Limit is 0 when the storage refused the value without
// saying its limit.
type SizeError struct {
	Size, Limit int64
}

func (e *SizeError) Error() string {
	if e.Limit == 0 {
		return fmt.Sprintf("storage: value of %d bytes too large", e.Size)
	}
	return fmt.Sprintf("storage: value of %d bytes over the limit of %d", e.Size, e.Limit)
}

// Is makes a SizeError an ErrTooLarge.
func (e *SizeError) Is(target error) bool { return target == ErrTooLarge }

// UnknownOutcomeError is a write that failed so that whether it was
// applied is not known: the storage timed out, or lost the connection
// after the request was sent, and retrying could not tell. Cause is the
// storage's own error, as its message names it. It is an ErrTimeout.
type UnknownOutcomeError struct {
	Cause error
}

func (e *UnknownOutcomeError) Error() string {
	return "storage: the outcome of the write is unknown: " + e.Cause.Error()
}

func (e *UnknownOutcomeError) Unwrap() error { return e.Cause }

// Is makes an UnknownOutcomeError an ErrTimeout.
func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrTimeout }
