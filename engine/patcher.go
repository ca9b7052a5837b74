package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/engine/fieldmanager"
	"github.com/specd-io/specd/schemas"
)

// maxJSONPatchOperations is kube-apiserver's limit.
const maxJSONPatchOperations = 10000

// patcher is one patch request, checked once before the first attempt.
type patcher struct {
	req      PatchRequest
	ops      jsonpatch.Patch                // a JSON patch, decoded
	config   *request                       // an apply's configuration, decoded
	meta     strategicpatch.LookupPatchMeta // a strategic merge patch's
	warnings []string                       // about the patch itself
}

// newPatcher checks and decodes req's patch, of an object of rv (the
// object's version, or the Scale's).
func newPatcher(rv *schemas.ResourceVersion, req PatchRequest) (*patcher, error) {
	p := &patcher{req: req}
	switch req.Type {
	case JSONPatchType:
		ops, err := jsonpatch.DecodePatch(req.Patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		p.ops = ops
	case MergePatchType, StrategicMergePatchType:
		if err := p.readMergePatch(); err != nil {
			return nil, err
		}
	case ApplyPatchType:
		config, err := decodeApplyConfig(rv, req.Patch, req.Options)
		if err != nil {
			return nil, err
		}
		p.config = config
		p.warnings = config.warnings
	default:
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason: metav1.StatusReasonUnsupportedMediaType, Message: fmt.Sprintf("unsupported patch type %q", req.Type)}}
	}
	return p, nil
}

// readMergePatch reads a merge or strategic merge patch strictly, unless
// fieldValidation is Ignore: keys given twice are warnings (Warn) or one
// Invalid (Strict). kube's message for a patch that is no JSON object
// differs by patch type.
func (p *patcher) readMergePatch() error {
	if p.req.Options.FieldValidation == FieldValidationIgnore {
		return nil // a patch that is no JSON object fails as it is applied
	}
	var v map[string]any
	strict, err := kjson.UnmarshalStrict(p.req.Patch, &v, kjson.DisallowDuplicateFields)
	if err != nil {
		return p.undecodable(err)
	}
	if len(strict) > 0 && p.req.Options.FieldValidation == FieldValidationStrict {
		return patchInvalid(p.strictValue(p.req.Patch), strict)
	}
	for _, e := range strict {
		p.warnings = append(p.warnings, e.Error())
	}
	return nil
}

func (p *patcher) undecodable(err error) error {
	if p.req.Type == StrategicMergePatchType {
		return apierrors.NewBadRequest(err.Error())
	}
	return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
}

// apply returns the patched object cur, and the write options for it.
func (p *patcher) apply(fields *fieldManagers, rv *schemas.ResourceVersion, cur []byte) ([]byte, WriteOptions, error) {
	switch p.req.Type {
	case JSONPatchType:
		out, err := p.ops.Apply(cur)
		if err != nil {
			return nil, p.req.Options.WriteOptions, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return out, p.req.Options.WriteOptions, nil
	case MergePatchType:
		out, err := jsonpatch.MergePatch(cur, p.req.Patch)
		if err != nil { // jsonpatch.ErrBadJSONPatch: the patch is not JSON
			return nil, p.req.Options.WriteOptions, apierrors.NewBadRequest(err.Error())
		}
		return out, p.req.Options.WriteOptions, nil
	case StrategicMergePatchType:
		out, err := strategicMerge(cur, p.req.Patch, p.meta)
		return out, p.req.Options.WriteOptions, err
	default:
		return p.applyTo(fields, rv, cur)
	}
}

// decode decodes the patched object with fieldValidation: unknown fields
// are warnings (Warn), dropped (Ignore), or one Invalid on "patch" listing
// them all (Strict), as kube-apiserver answers a patch.
func (p *patcher) decode(rv *schemas.ResourceVersion, body []byte) (*request, error) {
	fv := p.req.Options.FieldValidation
	if p.req.Type == ApplyPatchType {
		// The configuration was checked before; what the merge kept of the
		// stored object is not the client's to answer for.
		fv = FieldValidationIgnore
	}
	req, err := decodeWrite(rv, body, FieldValidationWarn, nil)
	if err != nil {
		return nil, err
	}
	switch fv {
	case FieldValidationStrict:
		if strict := decodingWarnings(req.warnings); len(strict) > 0 {
			errs := make([]error, len(strict))
			for i, w := range strict {
				errs[i] = errors.New(w)
			}
			return nil, patchInvalid(p.strictValue(body), errs)
		}
	case FieldValidationIgnore:
		req.warnings = nil
	}
	return req, nil
}

// patchInvalid is kube-apiserver's answer to a patch that fails strict
// field validation.
func patchInvalid(value string, errs []error) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), value, runtime.NewStrictDecodingError(errs).Error()),
	})
}

// strictValue is the value kube-apiserver's Invalid on "patch" shows for
// a patch that fails strict field validation: a strategic merge patch
// shows the patch as a Go map prints, other patches the patched object.
func (p *patcher) strictValue(patched []byte) string {
	if p.req.Type != StrategicMergePatchType {
		return string(patched)
	}
	var patch map[string]any
	_ = kjson.UnmarshalCaseSensitivePreserveInts(p.req.Patch, &patch) // newPatcher read it
	return fmt.Sprintf("%+v", patch)
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
	// the ones the apply owns. Strict, its unknown fields are answered
	// below, in the words of kube's apply.
	fv := opts.FieldValidation
	if fv == FieldValidationStrict {
		fv = FieldValidationWarn
	}
	config, err := decodedWrite(rv, obj, nil, j, fv)
	if err != nil {
		return nil, err
	}
	if opts.FieldValidation == FieldValidationStrict && len(config.unknown) > 0 {
		return nil, notDeclared(rv, config.meta, config.unknown)
	}
	config.warnings = append(warnings, config.warnings...)
	return config, nil
}

// notDeclared is the answer to an apply configuration with unknown
// fields, in the words kube-apiserver's field manager uses when it cannot
// type the configuration with the schema (structured-merge-diff's): a
// Bad Request here, where kube answers 500.
func notDeclared(rv *schemas.ResourceVersion, meta metav1.ObjectMeta, unknown []string) error {
	errs := make([]string, len(unknown))
	for i, p := range unknown {
		errs[i] = "." + p + ": field not declared in schema"
	}
	msg := errs[0]
	if len(errs) > 1 {
		msg = "errors:\n  " + strings.Join(errs, "\n  ")
	}
	gvk := schema.GroupVersionKind{Group: rv.Resource.Group, Version: rv.Version, Kind: rv.Resource.Kind}
	return apierrors.NewBadRequest(fmt.Sprintf("failed to create typed patch object (%s/%s; %s): %s", meta.Namespace, meta.Name, gvk, msg))
}

// applyWrite is the field manager's view of an apply.
func applyWrite(p *patcher) fieldmanager.Write {
	return fieldmanager.Write{Manager: p.req.Options.FieldManager, Subresource: p.req.Subresource}
}

// applyTo merges the apply configuration into the current object cur
// (JSON in rv's version) and returns the merged object with the managed
// fields the apply computed.
func (p *patcher) applyTo(fields *fieldManagers, rv *schemas.ResourceVersion, cur []byte) ([]byte, WriteOptions, error) {
	wopts := p.req.Options.WriteOptions
	fm, err := fields.of(rv)
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
	w.Now = fields.now()
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

// applyError is the answer to an apply that failed: 409 with the
// conflicts, or the error itself, which the server answers with a 500 as
// kube-apiserver answers an object its type converter rejects.
func applyError(err error) error {
	return fieldmanager.ConflictError(err)
}
