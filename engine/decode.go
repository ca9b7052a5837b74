package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine/internal/jsontree"
	"github.com/specd-io/specd/schemas"
)

// request is a write body decoded once: the object tree (pruned of unknown
// fields), its metadata as ObjectMeta for validation, and the warnings to
// answer with.
type request struct {
	obj      map[string]any
	metaMap  map[string]any // obj["metadata"]
	meta     metav1.ObjectMeta
	warnings []string
	// unknown are the paths of the unknown fields dropped (spec.foo).
	unknown []string
}

// decodeWrite decodes a create or update body for rv: it checks apiVersion
// and kind, decodes metadata, and prunes unknown fields as fieldValidation
// asks (Strict rejects them, Warn reports them, Ignore drops them). The
// body is decoded once: every later step reads req, where the last of
// duplicate keys won, as in kube-apiserver.
func decodeWrite(rv *schemas.ResourceVersion, body []byte, fv FieldValidation, bodyProblems []error) (*request, error) {
	obj, duplicates, err := decodeObject(body)
	if err != nil {
		return nil, unrecognized(rv, body, fmt.Errorf("couldn't get version/kind; json parse error: %w", err))
	}
	req, err := decodedWrite(rv, obj, slices.Concat(bodyProblems, duplicates), body, fv)
	if err != nil {
		return nil, err
	}
	// The object's metadata is what ObjectMeta kept, as kube-apiserver
	// stores it: what was validated is what is written.
	if req.metaMap, err = metaToMap(&req.meta); err != nil {
		return nil, err
	}
	req.obj["metadata"] = req.metaMap
	return req, nil
}

// decodedWrite is decodeWrite on a decoded body obj, with the duplicate
// fields its decoding found; body is only quoted in errors.
func decodedWrite(rv *schemas.ResourceVersion, obj map[string]any, duplicates []error, body []byte, fv FieldValidation) (*request, error) {
	if err := checkTypeMeta(rv, obj, body); err != nil {
		return nil, err
	}
	req := &request{obj: obj}
	unknown, err := req.decodeMeta(rv)
	if err != nil {
		return nil, err
	}
	req.dropBookkeeping()
	if rv.Schema != nil {
		unknown = append(unknown, rv.Schema.Prune(obj)...)
	}
	sort.Strings(unknown)
	req.unknown = unknown
	strict := make([]error, 0, len(duplicates)+len(unknown))
	strict = append(strict, duplicates...)
	for _, p := range unknown {
		strict = append(strict, fmt.Errorf("unknown field %q", p))
	}
	if len(strict) == 0 {
		return req, nil
	}
	switch fv {
	case FieldValidationStrict:
		return nil, cannotHandle(rv, rv.Resource.Kind, rv.Version, runtime.NewStrictDecodingError(strict))
	case FieldValidationIgnore:
	default:
		for _, e := range strict {
			req.warnings = append(req.warnings, e.Error())
		}
	}
	return req, nil
}

// decodeObject decodes a JSON object as kube-apiserver does, with
// sigs.k8s.io/json: integers kept as int64, duplicate fields reported.
// jsontree decodes the well-formed objects, a third of the time; what it
// does not take (errors, duplicates, invalid UTF-8) goes to
// sigs.k8s.io/json, whose answers are kube's.
func decodeObject(data []byte) (map[string]any, []error, error) {
	if obj, ok := jsontree.DecodeObject(data); ok {
		return obj, nil, nil
	}
	var obj map[string]any
	duplicates, err := kjson.UnmarshalStrict(data, &obj, kjson.DisallowDuplicateFields)
	return obj, duplicates, err
}

// checkTypeMeta checks apiVersion and kind against rv, as kube-apiserver
// does for a custom resource.
func checkTypeMeta(rv *schemas.ResourceVersion, obj map[string]any, body []byte) error {
	if obj == nil {
		return unrecognized(rv, body, fmt.Errorf("Object 'Kind' is missing in '%s'", body))
	}
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	if kind == "" {
		return unrecognized(rv, body, fmt.Errorf("Object 'Kind' is missing in '%s'", body))
	}
	if apiVersion == "" {
		return unrecognized(rv, body, fmt.Errorf("Object 'apiVersion' is missing in '%s'", body))
	}
	if apiVersion != rv.APIVersion() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
			apiVersion, rv.APIVersion()))
	}
	if kind != rv.Resource.Kind {
		md, _ := obj["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		return apierrors.NewInvalid(schema.GroupKind{Group: rv.Resource.Group, Kind: kind}, name, field.ErrorList{
			field.Invalid(field.NewPath("kind"), kind, "must be "+rv.Resource.Kind),
		})
	}
	return nil
}

// decodeMeta decodes metadata into req.meta and returns the paths of the
// metadata fields ObjectMeta does not have; they are dropped from the tree.
func (req *request) decodeMeta(rv *schemas.ResourceVersion) ([]string, error) {
	switch m := req.obj["metadata"].(type) {
	case nil:
		req.metaMap = map[string]any{}
		req.obj["metadata"] = req.metaMap
		return nil, nil
	case map[string]any:
		req.metaMap = m
	default:
		return nil, cannotHandle(rv, rv.Resource.Kind, rv.Version, errors.New("metadata: must be an object"))
	}
	unknownErrs, err := decodeObjectMeta(req.metaMap, &req.meta)
	if err != nil {
		return nil, cannotHandle(rv, rv.Resource.Kind, rv.Version, err)
	}
	if len(unknownErrs) == 0 {
		return nil, nil
	}
	paths := make([]string, 0, len(unknownErrs))
	for _, e := range unknownErrs {
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			paths = append(paths, "metadata."+fe.FieldPath())
		}
	}
	// Rebuild the metadata tree from what ObjectMeta kept.
	m, err := metaToMap(&req.meta)
	if err != nil {
		return nil, err
	}
	req.metaMap = m
	req.obj["metadata"] = m
	return paths, nil
}

// decodeObjectMeta decodes the metadata tree m into meta through its JSON,
// as kube-apiserver's GetObjectMeta does for a custom resource: from the
// decoded tree, never from the body's bytes, where a duplicate key would
// read otherwise. It returns the fields ObjectMeta does not have.
func decodeObjectMeta(m map[string]any, meta *metav1.ObjectMeta) ([]error, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("engine: encode metadata: %w", err)
	}
	return kjson.UnmarshalStrict(b, meta, kjson.DisallowUnknownFields)
}

func metaToMap(meta *metav1.ObjectMeta) (map[string]any, error) {
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("engine: encode metadata: %w", err)
	}
	m, _, err := decodeObject(b)
	if err != nil {
		return nil, fmt.Errorf("engine: decode metadata: %w", err)
	}
	return m, nil
}

// bookkeepingIgnored is the warning for a write whose body carries the
// annotation.
const bookkeepingIgnored = "metadata.annotations[" + converters.Annotation + "]: set by specd only; the value sent was ignored"

// dropBookkeeping removes the annotation from a write's body, with a
// warning.
func (req *request) dropBookkeeping() {
	a, ok := req.metaMap["annotations"].(map[string]any)
	if !ok {
		return
	}
	if _, ok := a[converters.Annotation]; !ok {
		return
	}
	delete(a, converters.Annotation)
	delete(req.meta.Annotations, converters.Annotation)
	if len(a) == 0 {
		delete(req.metaMap, "annotations")
		req.meta.Annotations = nil
	}
	req.warnings = append(req.warnings, bookkeepingIgnored)
}
