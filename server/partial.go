package server

import "github.com/tidwall/gjson"

// The heads of kube's metadata-only forms, which its metadata clients
// (the garbage collector, the namespace controller's informers) read of
// every kind.
const (
	partialHead     = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`
	partialListHead = `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":`
)

// partialObject is the PartialObjectMetadata of a stored object: its
// metadata, untouched.
func partialObject(obj []byte) []byte {
	return appendPartial(make([]byte, 0, len(partialHead)+len(obj)), obj)
}

func appendPartial(out, obj []byte) []byte {
	meta := gjson.GetBytes(obj, "metadata").Raw
	if meta == "" {
		meta = "{}"
	}
	out = append(out, partialHead...)
	out = append(out, meta...)
	return append(out, '}')
}

// partialList is the PartialObjectMetadataList of a list: its list
// metadata, and each item's PartialObjectMetadata.
func partialList(list []byte) []byte {
	meta := gjson.GetBytes(list, "metadata").Raw
	if meta == "" {
		meta = "{}"
	}
	out := make([]byte, 0, len(partialListHead)+len(list))
	out = append(out, partialListHead...)
	out = append(out, meta...)
	out = append(out, `,"items":[`...)
	for i, item := range gjson.GetBytes(list, "items").Array() {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendPartial(out, []byte(item.Raw))
	}
	return append(out, "]}"...)
}
