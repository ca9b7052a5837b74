package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/engine/fieldmanager"
	"github.com/specd-io/specd/schemas"
)

// appliedFields are the managed fields a server-side apply computed.
type appliedFields struct {
	entries []metav1.ManagedFieldsEntry
}

// decodeApplyConfig decodes and checks an apply configuration (YAML or
// JSON): the resource's apiVersion and kind, no managedFields, unknown
// fields handled as fieldValidation asks.
func decodeApplyConfig(rv *schemas.ResourceVersion, patch []byte, opts PatchOptions) (*request, error) {
	j, err := yaml.YAMLToJSON(patch)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	var warnings []string
	if opts.FieldValidation != FieldValidationIgnore {
		if err := yaml.UnmarshalStrict(patch, &map[string]any{}); err != nil {
			if opts.FieldValidation == FieldValidationStrict {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding YAML: %v", err))
			}
			warnings = append(warnings, err.Error())
		}
	}
	// j is YAMLToJSON's encoding of one decoded value: it has no duplicate
	// keys left, and every check below reads its one decoding.
	obj, _, err := decodeObject(j)
	if err != nil || obj == nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %s is not an object", summarize(j, 30)))
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if av != rv.APIVersion() || kind != rv.Resource.Kind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid object type: %s, Kind=%s", av, kind))
	}
	if md, _ := obj["metadata"].(map[string]any); md["managedFields"] != nil {
		return nil, apierrors.NewBadRequest("metadata.managedFields must be nil")
	}
	// The configuration's metadata stays as sent: the fields it names are
	// the ones the apply owns.
	config, err := decodedWrite(rv, obj, nil, j, opts.FieldValidation)
	if err != nil {
		return nil, err
	}
	config.warnings = append(warnings, config.warnings...)
	return config, nil
}

func applyWrite(p *patcher) fieldmanager.Write {
	return fieldmanager.Write{Manager: p.req.Options.FieldManager, Subresource: p.req.Subresource}
}

// applyToCurrent merges the configuration into the current object cur
// (JSON in rv's version) and returns the merged object with the managed
// fields the apply computed.
func (s *Store) applyToCurrent(rv *schemas.ResourceVersion, cur []byte, p *patcher) ([]byte, WriteOptions, error) {
	wopts := p.req.Options.WriteOptions
	fm, err := s.fieldManager(rv)
	if err != nil {
		return nil, wopts, err
	}
	live, _, err := decodeObject(cur)
	if err != nil {
		return nil, wopts, fmt.Errorf("engine: decode stored object: %w", err)
	}
	var entries []metav1.ManagedFieldsEntry
	if raw := gjson.GetBytes(cur, "metadata.managedFields"); raw.IsArray() {
		if err := json.Unmarshal([]byte(raw.Raw), &entries); err != nil {
			entries = nil
		}
	}
	w := applyWrite(p)
	w.Now = s.now()
	obj, out, err := fm.Apply(live, p.config.obj, entries, w, p.req.Options.Force)
	if err != nil {
		return nil, wopts, applyError(err)
	}
	wopts.applied = &appliedFields{entries: out}
	if obj == nil {
		return cur, wopts, nil
	}
	body, err := encode(obj, len(cur))
	return body, wopts, err
}

// applyCreate creates the object an apply names.
func (s *Store) applyCreate(ctx context.Context, p *patcher) (PatchResult, error) {
	rv, name := p.req.Version, p.req.Name
	fm, err := s.fieldManager(rv)
	if err != nil {
		return PatchResult{}, err
	}
	w := applyWrite(p)
	w.Now = s.now()
	obj, out, err := fm.Apply(nil, p.config.obj, nil, w, p.req.Options.Force)
	if err != nil {
		return PatchResult{}, applyError(err)
	}
	if obj == nil {
		obj = p.config.obj
	}
	if got, _ := p.config.metaMap["name"].(string); got != name {
		return PatchResult{}, errNameMismatch(got, name)
	}
	body, err := encode(obj, 512)
	if err != nil {
		return PatchResult{}, err
	}
	wopts := p.req.Options.WriteOptions
	wopts.applied = &appliedFields{entries: out}
	create := Ref{Version: rv, Namespace: p.req.Namespace}
	res, err := s.Create(ctx, WriteRequest{Ref: create, Body: body, Options: wopts})
	if apierrors.IsAlreadyExists(err) {
		// Created meanwhile: apply again, to what is there now.
		return s.Patch(ctx, p.req)
	}
	if err != nil {
		return PatchResult{}, err
	}
	res.Warnings = append(p.warnings, res.Warnings...)
	return PatchResult{Result: res, Created: true}, nil
}

// applyError is the answer to an apply that failed: 409 with the
// conflicts, or the error itself, which the server answers with a 500 as
// kube-apiserver answers an object its type converter rejects.
func applyError(err error) error {
	return fieldmanager.ConflictError(err)
}
