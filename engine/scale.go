package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/specd-io/specd/engine/fieldmanager"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/structural"
)

// The scale subresource is served as kube-apiserver serves it for a custom
// resource (apiextensions' ScaleREST): every write builds the object's
// autoscaling/v1 Scale, with the managed fields of the object's replicas
// moved onto the Scale's spec.replicas (managedfields.ScaleHandler, the
// library kube-apiserver uses); the write's field manager tracks the
// update or the apply on the Scale, with subresource "scale"; and the
// Scale's spec.replicas and its managers go back to the object, which is
// stored through the whole update path (validation, generation).

// getScale answers the scale subresource of an object: an autoscaling/v1
// Scale read from the paths the schema declares, as kube-apiserver answers
// for a custom resource.
func (s *Store) getScale(ctx context.Context, ref Ref) ([]byte, error) {
	rv := ref.Version
	if rv.Scale == nil {
		return nil, apierrors.NewNotFound(groupResource(rv.Resource), ref.Name)
	}
	obj, err := s.getObject(ctx, ref)
	if err != nil {
		return nil, err
	}
	return scaleOf(rv, obj)
}

// updateScale sets the object's spec replicas from a Scale body (an
// Update through the scale subresource) and answers the new Scale. The Scale's resourceVersion, when set, must be
// the object's.
func (s *Store) updateScale(ctx context.Context, req WriteRequest) (Result, error) {
	if req.Version.Scale == nil {
		return Result{}, apierrors.NewNotFound(groupResource(req.Version.Resource), req.Name)
	}
	sc, err := decodeScale(req.Body)
	if err != nil {
		return Result{}, err
	}
	if err := checkScale(sc, req.Name); err != nil {
		return Result{}, err
	}
	return s.retryScale(ctx, sc.ResourceVersion != "", func() (Result, error) {
		return s.writeScale(ctx, req.Ref, req.Options, func(live scaleState) (scaleChange, error) {
			return s.trackScaleUpdate(live, req.Body, req.Options)
		})
	})
}

// patchScale applies a merge or JSON patch (what `kubectl scale` sends), or
// a server-side apply of a Scale, to the object's Scale. The patched Scale
// carries the resourceVersion it was read at, so a write that lost a race
// is a conflict, retried on a fresh read unless the patch itself names a
// resourceVersion.
func (s *Store) patchScale(ctx context.Context, req PatchRequest) (PatchResult, error) {
	if req.Version.Scale == nil {
		return PatchResult{}, apierrors.NewNotFound(groupResource(req.Version.Resource), req.Name)
	}
	st := scaleType()
	p, err := newPatcher(st, req)
	if err != nil {
		return PatchResult{}, err
	}
	pinned := pinsResourceVersion(req.Patch)
	if req.Type == ApplyPatchType {
		pinned = p.config.meta.ResourceVersion != ""
	}
	res, err := s.retryScale(ctx, pinned, func() (Result, error) {
		return s.writeScale(ctx, req.Ref, req.Options.WriteOptions, func(live scaleState) (scaleChange, error) {
			patched, wopts, err := p.apply(&s.fields, st, live.json)
			if err != nil {
				return scaleChange{}, err
			}
			if req.Type == ApplyPatchType {
				return scaleChange{body: patched, entries: wopts.applied.entries}, nil
			}
			sc, err := decodeScale(patched)
			if err != nil {
				return scaleChange{}, err
			}
			if err := checkScale(sc, req.Name); err != nil {
				return scaleChange{}, err
			}
			return s.trackScaleUpdate(live, patched, req.Options.WriteOptions)
		})
	})
	if err != nil {
		return PatchResult{}, err
	}
	res.Warnings = append(p.warnings, res.Warnings...)
	return PatchResult{Result: res}, nil
}

// pinsResourceVersion reports whether a merge patch sets
// metadata.resourceVersion, read as the patch is applied: case-sensitive,
// the last of duplicate keys winning. A JSON patch (an array) pins none.
func pinsResourceVersion(patch []byte) bool {
	var p struct {
		Metadata struct {
			ResourceVersion *string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	return kjson.UnmarshalCaseSensitivePreserveInts(patch, &p) == nil && p.Metadata.ResourceVersion != nil
}

// retryScale runs write again while it loses races with other writes and
// ctx lasts, as a patch does, unless the request pinned a
// resourceVersion: then the conflict is the answer.
func (s *Store) retryScale(ctx context.Context, pinned bool, write func() (Result, error)) (Result, error) {
	for {
		res, err := write()
		if lostRace(err) && !pinned && ctx.Err() == nil {
			continue
		}
		return res, err
	}
}

// lostRace reports a conflict with another write, not with the fields of
// other managers (an apply's conflict, which trying again does not end).
func lostRace(err error) bool {
	var se apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &se) {
		return false
	}
	if d := se.Status().Details; d != nil {
		for _, c := range d.Causes {
			if c.Type == metav1.CauseTypeFieldManagerConflict {
				return false
			}
		}
	}
	return true
}

// scaleState is an object as a write through its scale subresource sees
// it.
type scaleState struct {
	json    []byte                      // its Scale, with the Scale's managed fields
	entries []metav1.ManagedFieldsEntry // the Scale's managed fields
}

// scaleChange is what a write makes of the Scale: the new Scale and its
// managed fields.
type scaleChange struct {
	body    []byte
	entries []metav1.ManagedFieldsEntry
}

// invalidReplicas stands, in the Scale a write starts from, for spec
// replicas the object does not have (kube-apiserver's marker): a write that
// leaves it there is refused.
const invalidReplicas = math.MinInt32

// writeScale reads the object, lets change compute the new Scale, and
// stores the object with its replicas and managed fields. A conflict is
// answered as one; patchScale retries it.
func (s *Store) writeScale(ctx context.Context, ref Ref, opts WriteOptions, change func(scaleState) (scaleChange, error)) (Result, error) {
	rv := ref.Version
	cur, err := s.getObject(ctx, ref)
	if err != nil {
		return Result{}, err
	}
	var parent []metav1.ManagedFieldsEntry
	if raw := gjson.GetBytes(cur, "metadata.managedFields"); raw.IsArray() {
		if err := json.Unmarshal([]byte(raw.Raw), &parent); err != nil {
			parent = nil
		}
	}
	h := managedfields.NewScaleHandler(parent, schema.GroupVersion{Group: rv.Resource.Group, Version: rv.Version}, replicasPaths(rv.Resource))
	entries, err := h.ToSubresource()
	if err != nil {
		return Result{}, fmt.Errorf("engine: managed fields of the scale: %w", err)
	}
	live, err := liveScale(rv, cur, entries)
	if err != nil {
		return Result{}, err
	}
	ch, err := change(scaleState{json: live, entries: entries})
	if err != nil {
		return Result{}, err
	}
	sc, err := decodeScale(ch.body)
	if err != nil {
		return Result{}, err
	}
	if sc.Spec.Replicas == invalidReplicas {
		return Result{}, apierrors.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", rv.Scale.SpecReplicasPath))
	}
	if err := checkScale(sc, ref.Name); err != nil {
		return Result{}, err
	}
	toParent, err := h.ToParent(ch.entries)
	if err != nil {
		return Result{}, fmt.Errorf("engine: managed fields of the scale: %w", err)
	}
	next, err := sjson.SetBytes(cur, dotPath(rv.Scale.SpecReplicasPath), sc.Spec.Replicas)
	if err == nil && sc.ResourceVersion != "" {
		next, err = sjson.SetBytes(next, "metadata.resourceVersion", sc.ResourceVersion)
	}
	if err != nil {
		return Result{}, err
	}
	opts.applied = &appliedFields{entries: toParent}
	res, err := s.update(ctx, newWrite(ctx, hook.OperationUpdate, ref, opts), next)
	if err != nil {
		return Result{}, err
	}
	out, err := scaleOf(rv, res.Object)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: res.Warnings}, nil
}

// trackScaleUpdate records an update of the Scale to body as opts's
// manager's, as kube-apiserver's field manager does for the scale
// subresource. Like kube-apiserver it never fails the write: managed
// fields it cannot compute are dropped.
func (s *Store) trackScaleUpdate(live scaleState, body []byte, opts WriteOptions) (scaleChange, error) {
	ch := scaleChange{body: body}
	fm, err := s.fields.of(scaleType())
	if err != nil {
		return scaleChange{}, err
	}
	liveObj, _, err1 := decodeObject(live.json)
	obj, _, err2 := decodeObject(body)
	if err := errors.Join(err1, err2); err != nil {
		return scaleChange{}, fmt.Errorf("engine: decode scale: %w", err)
	}
	out, changed, err := fm.Update(liveObj, obj, live.entries, fieldmanager.Write{Manager: opts.FieldManager, Subresource: "scale", Now: s.now()})
	switch {
	case err != nil:
		s.log.Warn("managed fields of the scale not tracked", "err", err)
	case changed:
		ch.entries = out
	default:
		ch.entries = live.entries
	}
	return ch, nil
}

// decodeScale decodes a Scale as kube-apiserver's scale codec does.
func decodeScale(body []byte) (autoscalingv1.Scale, error) {
	var sc autoscalingv1.Scale
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &sc); err != nil {
		return sc, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type Scale): %v", err))
	}
	if sc.Kind != "" && (sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1") {
		return sc, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type Scale): %s %s", sc.APIVersion, sc.Kind))
	}
	return sc, nil
}

// checkScale checks a Scale to write to the object name.
func checkScale(sc autoscalingv1.Scale, name string) error {
	if sc.Name != "" && sc.Name != name {
		return errNameMismatch(sc.Name, name)
	}
	if sc.Spec.Replicas < 0 && sc.Spec.Replicas != invalidReplicas {
		return apierrors.NewInvalid(scaleKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), sc.Spec.Replicas, "must be greater than or equal to 0")})
	}
	return nil
}

// scaleOf builds the Scale of obj (in rv's version).
func scaleOf(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	sc := scaleValue(rv, obj)
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func scaleValue(rv *schemas.ResourceVersion, obj []byte) autoscalingv1.Scale {
	md := gjson.GetBytes(obj, "metadata")
	sc := autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: md.Get("name").String(), Namespace: md.Get("namespace").String(),
			UID: typesUID(md.Get("uid").String()), ResourceVersion: md.Get("resourceVersion").String(),
		},
	}
	if ts, err := timeOf(md.Get("creationTimestamp").String()); err == nil {
		sc.CreationTimestamp = ts
	}
	sc.Spec.Replicas = int32(gjson.GetBytes(obj, dotPath(rv.Scale.SpecReplicasPath)).Int())
	sc.Status.Replicas = int32(gjson.GetBytes(obj, dotPath(rv.Scale.StatusReplicasPath)).Int())
	if p := rv.Scale.LabelSelectorPath; p != "" {
		sc.Status.Selector = gjson.GetBytes(obj, dotPath(p)).String()
	}
	return sc
}

// liveScale is the Scale a write starts from: the object's, with the
// Scale's managed fields, and invalidReplicas when the object has no spec
// replicas.
func liveScale(rv *schemas.ResourceVersion, obj []byte, entries []metav1.ManagedFieldsEntry) ([]byte, error) {
	sc := scaleValue(rv, obj)
	if !gjson.GetBytes(obj, dotPath(rv.Scale.SpecReplicasPath)).Exists() {
		sc.Spec.Replicas = invalidReplicas
	}
	sc.ManagedFields = entries
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// replicasPaths maps each version of r to the path of its spec replicas
// (nil for a version without a scale subresource), as kube-apiserver maps
// a CRD's versions for managedfields.ScaleHandler.
func replicasPaths(r *schemas.Resource) managedfields.ResourcePathMappings {
	m := make(managedfields.ResourcePathMappings, len(r.Versions))
	for _, v := range r.Versions {
		gv := schema.GroupVersion{Group: r.Group, Version: v.Version}.String()
		if v.Scale == nil {
			m[gv] = nil
			continue
		}
		var p fieldpath.Path
		for _, name := range strings.Split(strings.TrimPrefix(v.Scale.SpecReplicasPath, "."), ".") {
			p = append(p, fieldpath.PathElement{FieldName: &name})
		}
		m[gv] = p
	}
	return m
}

// scaleSchema is autoscaling/v1 Scale's spec and status; apiVersion, kind
// and metadata are implied.
const scaleSchema = `{"type": "object", "properties": {
  "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "format": "int32"}}},
  "status": {"type": "object", "properties": {
    "replicas": {"type": "integer", "format": "int32"},
    "selector": {"type": "string"}}}}}`

// scaleType is autoscaling/v1 Scale as a resource version, so that an
// apply configuration of a Scale is decoded, pruned and merged by the same
// code as a resource's.
var scaleType = sync.OnceValue(func() *schemas.ResourceVersion {
	var s openapi3.Schema
	if err := json.Unmarshal([]byte(scaleSchema), &s); err != nil {
		panic(fmt.Sprintf("engine: scale schema: %v", err))
	}
	compiled, errs := structural.Compile(&s)
	if len(errs) > 0 {
		panic(fmt.Sprintf("engine: scale schema: %v", errs))
	}
	r := &schemas.Resource{Group: "autoscaling", Kind: "Scale", ListKind: "ScaleList", Plural: "scales", StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, Schema: compiled, OpenAPI: &s}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
})

func timeOf(s string) (metav1.Time, error) {
	var t metav1.Time
	err := t.UnmarshalQueryParameter(s)
	return t, err
}

// dotPath turns a schema's .spec.replicas into a gjson path.
func dotPath(p string) string { return gjsonPath(strings.TrimPrefix(p, ".")) }

func scaleKind() schema.GroupKind { return schema.GroupKind{Group: "autoscaling", Kind: "Scale"} }
