package auditlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit"
	"sigs.k8s.io/yaml"
)

// LogRequestObject adds a write's body (JSON) to the request's audit
// event: its name and namespace to the objectRef (a create names its
// object only there), and the body itself at level Request and above.
func LogRequestObject(ctx context.Context, gvr schema.GroupVersionResource, subresource string, body []byte) {
	if levelOf(ctx).Less(auditinternal.LevelMetadata) {
		return
	}
	audit.LogRequestObject(ctx, newRawObject(body), gvr.GroupVersion(), gvr, subresource, rawSerializer{})
}

// LogRequestPatch adds a patch to the request's audit event at level
// Request and above, as JSON: an apply's YAML is converted. A patch that
// is not JSON is left out, so that the event stays one line of JSON;
// the request fails anyway.
func LogRequestPatch(ctx context.Context, patch []byte, isYAML bool) {
	if levelOf(ctx).Less(auditinternal.LevelRequest) {
		return
	}
	if isYAML {
		j, err := yaml.YAMLToJSON(patch)
		if err != nil {
			return
		}
		patch = j
	}
	if json.Valid(patch) {
		audit.LogRequestPatch(ctx, patch)
	}
}

// LogResponseObject adds the answer's body (JSON: an object, a list or a
// Status) to the request's audit event: a Status as its responseStatus,
// and the body itself at level RequestResponse.
func LogResponseObject(ctx context.Context, body []byte) {
	level := levelOf(ctx)
	if level.Less(auditinternal.LevelMetadata) {
		return
	}
	isStatus := gjson.GetBytes(body, "kind").Str == "Status"
	if !isStatus && level.Less(auditinternal.LevelRequestResponse) {
		return // the filter logs the code; nothing else of the body is kept
	}
	var obj runtime.Object = newRawObject(body)
	if isStatus {
		var s metav1.Status
		if json.Unmarshal(body, &s) == nil {
			obj = &s
		}
	}
	audit.LogResponseObject(ctx, obj, schema.GroupVersion{}, rawSerializer{})
}

// LogResponseStatus adds an answer that is a Status to the request's
// audit event: its code, reason and message as the responseStatus, and
// the Status itself at level RequestResponse.
func LogResponseStatus(ctx context.Context, st *metav1.Status) {
	if levelOf(ctx).Less(auditinternal.LevelMetadata) {
		return
	}
	audit.LogResponseObject(ctx, st, schema.GroupVersion{}, rawSerializer{})
}

// levelOf is the level the policy gave the request's event: "" (below
// Metadata) when there is no audit context, or when the audit filter
// never initialized it, as happens when audit is off: WithAuditInit
// still adds the context for the Audit-Id header.
func levelOf(ctx context.Context) auditinternal.Level {
	ac := audit.AuditContextFrom(ctx)
	if ac == nil {
		return ""
	}
	return ac.GetEventLevel()
}

// rawObject is JSON bytes dressed as a runtime.Object, so that
// k8s.io/apiserver's audit functions read its metadata and rawSerializer
// writes it back as it came. The ObjectMeta holds only what audit reads.
type rawObject struct {
	metav1.ObjectMeta
	raw []byte
}

func newRawObject(body []byte) *rawObject {
	m := gjson.GetManyBytes(body, "metadata.name", "metadata.namespace", "metadata.uid", "metadata.resourceVersion")
	o := &rawObject{raw: body}
	o.Name, o.Namespace, o.UID, o.ResourceVersion = m[0].Str, m[1].Str, types.UID(m[2].Str), m[3].Str
	// audit drops managed fields from a copy by setting them to nil
	// (the policy's omitManagedFields): non-nil marks them kept.
	o.ManagedFields = []metav1.ManagedFieldsEntry{}
	return o
}

func (o *rawObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (o *rawObject) DeepCopyObject() runtime.Object {
	c := &rawObject{raw: o.raw}
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return c
}

// body is the JSON to log: raw, less managed fields if audit dropped them.
func (o *rawObject) body() ([]byte, error) {
	if o.ManagedFields != nil {
		return o.raw, nil
	}
	b, err := sjson.DeleteBytes(o.raw, "metadata.managedFields")
	n := gjson.GetBytes(b, "items.#").Int()
	for i := int64(0); i < n && err == nil; i++ {
		b, err = sjson.DeleteBytes(b, fmt.Sprintf("items.%d.metadata.managedFields", i))
	}
	return b, err
}

// rawSerializer encodes a rawObject as its bytes and anything else (a
// Status) with encoding/json; audit encodes only to JSON.
type rawSerializer struct{}

func (rawSerializer) SupportedMediaTypes() []runtime.SerializerInfo {
	return []runtime.SerializerInfo{{MediaType: runtime.ContentTypeJSON, MediaTypeType: "application", MediaTypeSubType: "json", EncodesAsText: true, Serializer: rawSerializer{}}}
}

func (rawSerializer) EncoderForVersion(e runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return e
}

func (rawSerializer) DecoderToVersion(d runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return d
}

func (rawSerializer) Encode(obj runtime.Object, w io.Writer) error {
	o, ok := obj.(*rawObject)
	if !ok {
		return json.NewEncoder(w).Encode(obj)
	}
	b, err := o.body()
	if err != nil {
		return fmt.Errorf("auditlog: dropping managed fields: %w", err)
	}
	_, err = w.Write(b)
	return err
}

func (rawSerializer) Decode([]byte, *schema.GroupVersionKind, runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	return nil, nil, errors.New("auditlog: nothing is decoded")
}

func (rawSerializer) Identifier() runtime.Identifier { return "specd-audit-raw-json" }
