package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// deleteAttempts bounds the retries of a conditional delete that races
// with writes.
const deleteAttempts = 5

// Delete removes an object and answers what kube-apiserver answers for a
// custom resource: a Status of Success with the object's details, or, while
// finalizers hold it, the object marked for deletion (finalizers.go).
func (s *Store) Delete(ctx context.Context, ref Ref, opts DeleteOptions) (Result, error) {
	r := ref.Version.Resource
	if ref.Subresource != "" {
		return Result{}, apierrors.NewMethodNotSupported(groupResource(r), "delete")
	}
	res, err := s.deleteObject(ctx, ref, opts, nil)
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return Result{}, err
		}
		return Result{}, storageError(r, ref.Name, err)
	}
	return res, nil
}

// checkDeletePreconditions answers as kube-apiserver does when a delete's
// uid or resourceVersion precondition does not hold.
func checkDeletePreconditions(r *schemas.Resource, name string, kv storage.KeyValue, opts DeleteOptions) error {
	qualified := schema.GroupResource{Group: r.Group, Resource: r.Kind}
	if opts.UID != "" {
		if uid := gjson.GetBytes(kv.Value, "metadata.uid").String(); uid != opts.UID {
			return apierrors.NewConflict(qualified, name, fmt.Errorf(
				"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated",
				opts.UID, uid))
		}
	}
	if opts.ResourceVersion != "" {
		if current := strconv.FormatInt(kv.ModRevision, 10); current != opts.ResourceVersion {
			return apierrors.NewConflict(qualified, name, fmt.Errorf(
				"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified",
				opts.ResourceVersion, current))
		}
	}
	return nil
}

// deleteStatus is the Status kube-apiserver answers a delete with.
func deleteStatus(r *schemas.Resource, name, uid string) []byte {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name:  name,
			Group: r.Group,
			Kind:  r.Plural,
			UID:   types.UID(uid),
		},
	}
	b, _ := json.Marshal(st) // a Status always encodes
	return b
}
