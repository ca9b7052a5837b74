package engine

import (
	"errors"
	"fmt"

	"github.com/specd-io/specd/engine/storage"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

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
// error kube-apiserver answers with. Any other error is a failure of the
// storage and is returned as it is: the server logs and counts it, and
// answers a 500 InternalError.
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
		return err
	}
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
