package server

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	sigsjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin/gotypes"
)

// contentTypeProtobuf is what client-go's typed clients (kubectl create
// role, rolebinding...) send the built-in kinds as, and ask for first.
const contentTypeProtobuf = "application/vnd.kubernetes.protobuf"

// protobufKinds are the Go types of the built-in kinds
// (schemas/builtin/gotypes), with meta/v1's Status, WatchEvent and
// options, which every group registers. Only the edge uses them: a
// protobuf body is decoded once to JSON, and a JSON answer is encoded once
// to protobuf when the client asks for it; objects are JSON from there on,
// as every other object is. They are made on first use, as the codecs
// below are, not when the program starts.
func protobufKinds() *runtime.Scheme { return gotypes.Scheme() }

// protobufCodec reads and writes kube's protobuf envelope: the magic
// "k8s\x00", then a runtime.Unknown naming apiVersion and kind.
var protobufCodec = sync.OnceValue(func() *protobuf.Serializer {
	return protobuf.NewSerializer(protobufKinds(), protobufKinds())
})

// protobufToJSON turns a protobuf body of a built-in kind into the JSON
// kube would have read, apiVersion and kind included.
func protobufToJSON(body []byte) ([]byte, error) {
	obj, gvk, err := protobufCodec().Decode(body, nil, nil)
	if err != nil {
		return nil, badRequest("the request body is not a protobuf object of a built-in kind: %v", err)
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return json.Marshal(obj)
}

// protobufDeleteOptions reads the protobuf DeleteOptions that client-go's
// typed clients send with every delete. The envelope may name any group
// (each registers DeleteOptions), so only its kind is checked.
func protobufDeleteOptions(body []byte, into *metav1.DeleteOptions) error {
	var unk runtime.Unknown
	if _, _, err := protobufCodec().Decode(body, nil, &unk); err != nil {
		return badRequest("decoding DeleteOptions: %v", err)
	}
	if unk.Kind != "DeleteOptions" {
		return badRequest("decoding DeleteOptions: the body is a protobuf %s", unk.Kind)
	}
	if err := into.Unmarshal(unk.Raw); err != nil {
		return badRequest("decoding DeleteOptions: %v", err)
	}
	return nil
}

// hasProtobuf reports whether bodies of rv may be protobuf: rv is a
// built-in kind with generated Go types.
func hasProtobuf(rv *schemas.ResourceVersion) bool {
	gvk := schema.GroupVersionKind{Group: rv.Resource.Group, Version: rv.Version, Kind: rv.Resource.Kind}
	return protobufKinds().Recognizes(gvk)
}

// hasProtobuf reports whether t's answers may be protobuf: its kind has
// Go types. The scale subresource's autoscaling/v1 Scale has none here.
func (t target) hasProtobuf() bool {
	return t.Subresource != "scale" && hasProtobuf(t.Version)
}

// jsonToProtobuf encodes an answer of the engine (an object, a list, a
// Status) as kube's protobuf, through the Go type its apiVersion and kind
// name. Each object, also each item of a list, is decoded once.
func jsonToProtobuf(body []byte) ([]byte, error) {
	obj, err := typedObject(body)
	if err != nil {
		return nil, err
	}
	return encodeProtobuf(obj)
}

// encodeProtobuf writes obj in kube's protobuf envelope.
func encodeProtobuf(obj runtime.Object) ([]byte, error) {
	var out appendWriter
	if err := protobufCodec().Encode(obj, &out); err != nil {
		return nil, fmt.Errorf("encoding %T as protobuf: %w", obj, err)
	}
	return out, nil
}

// appendWriter keeps what is written to it; the protobuf codec writes an
// object in one piece, so this costs one copy.
type appendWriter []byte

func (a *appendWriter) Write(p []byte) (int, error) {
	*a = append(*a, p...)
	return len(p), nil
}

// typedObject decodes JSON of the engine into the Go type its apiVersion
// and kind name, with kube's JSON decoder's rules (case-sensitive keys).
// A field the Go type lacks is dropped, as the typed client's own JSON
// decoding would drop it; kube-apiserver has no such field to lose, and
// specd's built-in schemas declare the Go types' fields.
func typedObject(body []byte) (runtime.Object, error) {
	tm := gjson.GetManyBytes(body, "apiVersion", "kind")
	gv, err := schema.ParseGroupVersion(tm[0].String())
	if err != nil {
		return nil, fmt.Errorf("answering in protobuf: %w", err)
	}
	gvk := gv.WithKind(tm[1].String())
	obj, err := protobufKinds().New(gvk)
	if err != nil {
		return nil, fmt.Errorf("answering in protobuf: %w", err)
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(body, obj); err != nil {
		return nil, fmt.Errorf("answering %s in protobuf: %w", gvk, err)
	}
	return obj, nil
}

// contentTypeProtobufWatch is the media type of kube's protobuf watch.
const contentTypeProtobufWatch = contentTypeProtobuf + ";stream=watch"

// watchEventCodec writes a metav1.WatchEvent bare, without the envelope,
// as the frames of a protobuf watch carry it.
var watchEventCodec = sync.OnceValue(func() *protobuf.RawSerializer {
	return protobuf.NewRawSerializer(protobufKinds(), protobufKinds())
})

// protobufWatch encodes watch events as kube's protobuf stream does:
// frames of a 4-byte big-endian length and a bare metav1.WatchEvent,
// whose object is the enveloped protobuf of the event's object.
// Bookmarks keep their resourceVersion and annotations
// (k8s.io/initial-events-end), which ObjectMeta holds.
type protobufWatch struct {
	object, frame appendWriter // reused from event to event
	alloc         runtime.Allocator
}

// encode returns the frame of one event; it is valid until the next.
func (p *protobufWatch) encode(typ string, obj []byte) ([]byte, error) {
	typed, err := typedObject(obj)
	if err != nil {
		return nil, err
	}
	p.object = p.object[:0]
	if err := protobufCodec().EncodeWithAllocator(typed, &p.object, &p.alloc); err != nil {
		return nil, fmt.Errorf("encoding a watch event's %T as protobuf: %w", typed, err)
	}
	ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: p.object}}
	p.frame = p.frame[:0]
	frames := protobuf.LengthDelimitedFramer.NewFrameWriter(&p.frame)
	if err := watchEventCodec().EncodeWithAllocator(ev, frames, &p.alloc); err != nil {
		return nil, fmt.Errorf("encoding a watch event as protobuf: %w", err)
	}
	return p.frame, nil
}
