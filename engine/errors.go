package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// errModified is the reason kube-apiserver gives for a stale resourceVersion.
var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

func groupResource(r *schemas.Resource) schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Plural}
}

func groupKind(r *schemas.Resource) schema.GroupKind {
	return schema.GroupKind{Group: r.Group, Kind: r.Kind}
}

// storageError turns a Storage error about one object into the Status
// error kube-apiserver answers with (storageStatus says the rest).
func storageError(r *schemas.Resource, name string, err error) error {
	gr := groupResource(r)
	switch {
	case errors.Is(err, storage.ErrKeyNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, storage.ErrKeyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, storage.ErrConflict):
		return apierrors.NewConflict(gr, name, errModified)
	default:
		return storageStatus(err)
	}
}

// listError turns a Storage error of a list into kube-apiserver's Status:
// a compacted snapshot is 410 Gone (with a token to go on when the list
// was continued from startKey), and the errors of any request as
// storageStatus says.
func listError(err error, prefix, startKey string) error {
	switch {
	case errors.Is(err, storage.ErrCompacted) && startKey != "":
		return compactedContinue(prefix, startKey)
	case errors.Is(err, storage.ErrCompacted):
		return apierrors.NewResourceExpired(tooOldList)
	default:
		return storageStatus(err)
	}
}

// storageStatus turns the Storage errors that any request may meet into
// kube-apiserver's Status. Any other error is a failure of the storage
// and is returned as it is: the server logs and counts it, and answers a
// 500 InternalError.
func storageStatus(err error) error {
	var rev *storage.RevisionError
	var size *storage.SizeError
	var unknown *storage.UnknownOutcomeError
	switch {
	case errors.As(err, &rev):
		return tooLargeResourceVersion(rev.Requested, rev.Current)
	case errors.As(err, &size):
		return objectTooLarge(size)
	case errors.As(err, &unknown):
		// kube-apiserver answers etcd's own failure as a 500 with etcd's
		// message; the outcome is said, since a client must read before
		// it retries.
		return apierrors.NewInternalError(fmt.Errorf("%s; the write may or may not have been applied", etcdMessage(unknown.Cause)))
	case errors.Is(err, storage.ErrNoSpace):
		return storageFull()
	case errors.Is(err, storage.ErrTimeout):
		// The request's own deadline (--request-timeout), as
		// kube-apiserver words it.
		return apierrors.NewTimeoutError("request did not complete within requested timeout - "+context.DeadlineExceeded.Error(), 0)
	default:
		return err
	}
}

// tooLargeResourceVersion is kube-apiserver's answer to a read at a
// revision storage has not reached (k8s.io/apiserver/pkg/storage's
// NewTooLargeResourceVersionError): 504 Timeout, whose cause tells
// client-go's reflector to list again without it.
func tooLargeResourceVersion(requested, current int64) error {
	se := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", requested, current), 0)
	se.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return se
}

// storageFull is the answer to a write while etcd's NOSPACE alarm is
// raised: kube-apiserver's code, 500, with etcd's own words first (those
// an operator searches for) and what still works and what frees space.
func storageFull() error {
	return apierrors.NewInternalError(errors.New("etcdserver: mvcc: database space exceeded: " +
		"the storage is full (etcd's NOSPACE alarm) and refuses writes until space is freed; " +
		"reads and deletes still work; compact and defragment etcd, then disarm the alarm (docs/operations.md)"))
}

// objectTooLarge is the 413 of an object over what one write may store.
func objectTooLarge(e *storage.SizeError) error {
	if e.Limit == 0 {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"the object is %d bytes when stored, more than the storage accepts (etcd's --max-request-bytes)", e.Size))
	}
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
		"the object is %d bytes when stored, limit is %d", e.Size, e.Limit))
}

// cannotHandle is kube-apiserver's answer to a body it cannot decode as the
// resource's kind.
func cannotHandle(rv *schemas.ResourceVersion, kind, version string, err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		kind, version, rv.Resource.Kind, err))
}

// unrecognized is kube-apiserver's answer to a body that is not an object
// of a known kind at all.
func unrecognized(rv *schemas.ResourceVersion, body []byte, err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)",
		rv.Resource.Kind, err, summarize(body, 30)))
}

// summarize is how kube-apiserver quotes a body it could not decode.
func summarize(data []byte, max int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > max {
			return string(data[:max]) + " ..."
		}
		return string(data)
	default:
		if len(data) > max {
			return fmt.Sprintf("%x ...", data[:max])
		}
		return fmt.Sprintf("%x", data)
	}
}

// etcdMessage is the last part of a storage error's message: etcd's own
// ("etcdserver: request timed out, possibly due to previous leader
// failure"), without the storage keys the wrapping adds.
func etcdMessage(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": etcdserver: "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// compactedContinue is the 410 Gone answer to a continue token whose
// snapshot is gone, with a token that continues at the latest revision.
func compactedContinue(prefix, startKey string) error {
	// startKey is the last key of the previous page plus "\x00".
	token, err := encodeContinue(prefix, strings.TrimSuffix(startKey, "\x00"), -1)
	if err != nil {
		return apierrors.NewResourceExpired(continueExpired)
	}
	se := apierrors.NewResourceExpired(inconsistentContinue)
	se.ErrStatus.ListMeta.Continue = token
	return se
}

// tooOldList is kube-apiserver's message for an Exact list at a compacted
// revision.
const tooOldList = "The resourceVersion for the provided list is too old."

// The messages kube-apiserver gives when a continue token's snapshot was
// compacted.
const (
	continueExpired = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter."
	inconsistentContinue = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)
