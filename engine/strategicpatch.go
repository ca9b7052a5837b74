package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/schemas"
)

// StrategicPatchMeta answers the strategic merge patch metadata of a kind
// in one version, and false for a kind that takes no strategic merge
// patch. The metadata lives in the struct tags of Go types (k8s.io/api),
// which the engine does not hold: cmd/specd gives it the built-in kinds'
// (schemas/builtin/gotypes.PatchMeta).
type StrategicPatchMeta func(schema.GroupVersionKind) (strategicpatch.LookupPatchMeta, bool)

// lookup is the metadata a patch of type pt of rv uses: for a strategic
// merge patch, the kind's, or kube's 415 when it has none (the scale
// subresource has none: its Scale is not rv's kind); for the other types,
// nil.
func (m StrategicPatchMeta) lookup(rv *schemas.ResourceVersion, pt PatchType, subresource string) (strategicpatch.LookupPatchMeta, error) {
	if pt != StrategicMergePatchType {
		return nil, nil
	}
	if m != nil && subresource != "scale" {
		gvk := schema.GroupVersionKind{Group: rv.Resource.Group, Version: rv.Version, Kind: rv.Resource.Kind}
		if meta, ok := m(gvk); ok {
			return meta, nil
		}
	}
	return nil, unsupportedPatchType(JSONPatchType, MergePatchType, ApplyPatchType)
}

// unsupportedPatchType is kube-apiserver's 415 for a patch type the
// resource does not take.
func unsupportedPatchType(accepted ...PatchType) error {
	names := make([]string, len(accepted))
	for i, pt := range accepted {
		names[i] = string(pt)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(names, ", ")}}
}

// strategicMerge applies the strategic merge patch to cur, with the
// kind's metadata, as kube-apiserver does: on maps decoded
// case-sensitively with integers kept, nulls in the patch removing fields.
func strategicMerge(cur, patchBytes []byte, meta strategicpatch.LookupPatchMeta) ([]byte, error) {
	if meta == nil {
		return nil, unsupportedPatchType(JSONPatchType, MergePatchType, ApplyPatchType)
	}
	var original, patch map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(cur, &original); err != nil {
		return nil, fmt.Errorf("engine: decoding the object to patch: %w", err)
	}
	// The merge consumes the patch map, so each attempt decodes its own.
	if err := kjson.UnmarshalCaseSensitivePreserveInts(patchBytes, &patch); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	merged, err := mergeStrategic(original, patch, meta)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("engine: encoding the patched object: %w", err)
	}
	return out, nil
}

// mergeStrategic merges patch into original. The library panics on some
// malformed directives (a $setElementOrder list of lists): that is the
// patch's fault, answered as its errors are.
func mergeStrategic(original, patch map[string]any, meta strategicpatch.LookupPatchMeta) (merged map[string]any, err error) {
	defer func() {
		if v := recover(); v != nil {
			merged, err = nil, apierrors.NewBadRequest(fmt.Sprintf("the strategic merge patch cannot be applied: %v", v))
		}
	}()
	if merged, err = strategicpatch.StrategicMergeMapPatchUsingLookupPatchMeta(original, patch, meta); err != nil {
		return nil, strategicMergeError(err)
	}
	return merged, nil
}

// strategicMergeError is the Status of a failed merge. kube-apiserver
// answers a malformed patch 400 and a list of lists or $retainKeys that
// the patch contradicts 422, as here; the library's other errors (a
// directive of the wrong type, a merge key missing from an item, a field
// the type lacks) it answers 500, which specd makes a 400: they are
// the patch's fault, not the server's.
func strategicMergeError(err error) error {
	switch {
	case errors.Is(err, mergepatch.ErrNoListOfLists), errors.Is(err, mergepatch.ErrPatchContentNotMatchRetainKeys):
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return apierrors.NewBadRequest(err.Error())
	}
}
