package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/schemas"
)

// GetScale answers the scale subresource of an object: an autoscaling/v1
// Scale read from the paths the schema declares, as kube-apiserver answers
// for a custom resource.
func (s *Store) GetScale(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string) ([]byte, error) {
	if rv.Scale == nil {
		return nil, apierrors.NewNotFound(groupResource(rv.Resource), name)
	}
	obj, err := s.Get(ctx, rv, namespace, name)
	if err != nil {
		return nil, err
	}
	return scaleOf(rv, obj)
}

// UpdateScale sets the object's spec replicas from a Scale body and
// answers the new Scale. The Scale's resourceVersion, when set, must be
// the object's. The object goes through the whole update path
// (validation, generation).
func (s *Store) UpdateScale(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions) (Result, error) {
	if rv.Scale == nil {
		return Result{}, apierrors.NewNotFound(groupResource(rv.Resource), name)
	}
	var sc autoscalingv1.Scale
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &sc); err != nil {
		return Result{}, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type Scale): %v", err))
	}
	if sc.Kind != "" && (sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1") {
		return Result{}, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type Scale): %s %s", sc.APIVersion, sc.Kind))
	}
	if sc.Name != "" && sc.Name != name {
		return Result{}, errNameMismatch(sc.Name, name)
	}
	if sc.Spec.Replicas < 0 {
		return Result{}, apierrors.NewInvalid(scaleKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), sc.Spec.Replicas, "must be greater than or equal to 0")})
	}
	cur, err := s.Get(ctx, rv, namespace, name)
	if err != nil {
		return Result{}, err
	}
	if sc.ResourceVersion != "" && sc.ResourceVersion != gjson.GetBytes(cur, "metadata.resourceVersion").String() {
		return Result{}, apierrors.NewConflict(groupResource(rv.Resource), name, errModified)
	}
	next, err := sjson.SetBytes(cur, dotPath(rv.Scale.SpecReplicasPath), sc.Spec.Replicas)
	if err != nil {
		return Result{}, apierrors.NewInternalError(err)
	}
	res, err := s.Update(ctx, rv, namespace, name, next, opts)
	if err != nil {
		return Result{}, err
	}
	out, err := scaleOf(rv, res.Object)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out, Warnings: res.Warnings}, nil
}

// patchScale applies a merge or JSON patch to the object's Scale, as
// `kubectl scale` sends one, and writes the result with UpdateScale. The
// patched Scale carries the resourceVersion it was read at, so a write that
// lost a race is a conflict, retried on a fresh read unless the patch
// itself names a resourceVersion.
func (s *Store) patchScale(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, pt PatchType, patch []byte, opts PatchOptions) (PatchResult, error) {
	if rv.Scale == nil {
		return PatchResult{}, apierrors.NewNotFound(groupResource(rv.Resource), name)
	}
	if pt == ApplyPatchType {
		return PatchResult{}, apierrors.NewBadRequest("server-side apply is not supported on the scale subresource; use a merge or JSON patch")
	}
	p, err := newPatcher(rv, pt, patch, opts)
	if err != nil {
		return PatchResult{}, err
	}
	pinned := gjson.GetBytes(patch, "metadata.resourceVersion").Exists()
	for attempt := 1; ; attempt++ {
		cur, err := s.GetScale(ctx, rv, namespace, name)
		if err != nil {
			return PatchResult{}, err
		}
		patched, wopts, err := p.apply(s, rv, cur)
		if err != nil {
			return PatchResult{}, err
		}
		res, err := s.UpdateScale(ctx, rv, namespace, name, patched, wopts)
		if apierrors.IsConflict(err) && !pinned && attempt < maxPatchAttempts {
			continue
		}
		if err != nil {
			return PatchResult{}, err
		}
		res.Warnings = append(p.warnings, res.Warnings...)
		return PatchResult{Result: res}, nil
	}
}

// scaleOf builds the Scale of obj (in rv's version).
func scaleOf(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
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
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return b, nil
}

func timeOf(s string) (metav1.Time, error) {
	var t metav1.Time
	err := t.UnmarshalQueryParameter(s)
	return t, err
}

// dotPath turns a schema's .spec.replicas into a gjson path.
func dotPath(p string) string { return gjsonPath(strings.TrimPrefix(p, ".")) }

func scaleKind() schema.GroupKind { return schema.GroupKind{Group: "autoscaling", Kind: "Scale"} }
