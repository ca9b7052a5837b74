package etcdstorage

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/specd-io/specd/engine/storage"
)

// wrap adds context to an etcd error and maps it to the storage
// contract's sentinel, the one place that reads etcd's errors: the engine
// sees only the sentinels.
func wrap(err error, op, key string) error {
	if s := sentinel(err); s != nil {
		return fmt.Errorf("etcdstorage: %s %q: %w: %w", op, key, s, err)
	}
	return fmt.Errorf("etcdstorage: %s %q: %w", op, key, err)
}

// wrapWrite is wrap for a write of value: a value etcd refuses as too
// large is a storage.SizeError with its size.
func wrapWrite(err error, op, key string, value []byte) error {
	if sentinel(err) == storage.ErrTooLarge {
		return fmt.Errorf("etcdstorage: %s %q: %w: %w", op, key, &storage.SizeError{Size: int64(len(value))}, err)
	}
	return wrap(err, op, key)
}

// sentinel is the storage error err is, or nil.
func sentinel(err error) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return storage.ErrCompacted
	case errors.Is(err, rpctypes.ErrFutureRev):
		return storage.ErrFutureRevision
	case errors.Is(err, rpctypes.ErrNoSpace):
		// Before tooLarge: etcd answers NOSPACE with ResourceExhausted too.
		return storage.ErrNoSpace
	case tooLarge(err):
		return storage.ErrTooLarge
	case timedOut(err):
		return storage.ErrTimeout
	}
	return nil
}

// tooLarge is etcd's answer to a request over its --max-request-bytes,
// or gRPC's to a message over the limit of either end.
func tooLarge(err error) bool {
	if errors.Is(err, rpctypes.ErrRequestTooLarge) {
		return true
	}
	// etcd answers "too many requests" with ResourceExhausted too.
	return status.Code(err) == codes.ResourceExhausted && !errors.Is(err, rpctypes.ErrTooManyRequests)
}

// timedOut is etcd's answer to a request it did not finish in time, or
// the end of the request's own deadline (the API's --request-timeout):
// a write may or may not have been applied.
func timedOut(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded {
		return true
	}
	for _, t := range []error{rpctypes.ErrTimeout, rpctypes.ErrTimeoutDueToLeaderFail,
		rpctypes.ErrTimeoutDueToConnectionLost, rpctypes.ErrTimeoutWaitAppliedIndex, errTryTimeout} {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
