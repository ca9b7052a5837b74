package server

import (
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/schemas"
)

// withTypeMeta is body, a JSON object written to a built-in kind of rv,
// with the apiVersion and kind it lacks taken from the URL's version, as
// kube-apiserver decodes a body of a kind with Go types (the JSON
// serializer's defaults). client-go's dynamic client sends an object
// without them when its caller left them out. A custom resource's body
// must name both, as in kube-apiserver: the engine says so.
func withTypeMeta(body []byte, rv *schemas.ResourceVersion) []byte {
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return body
	}
	got := gjson.GetManyBytes(body, "apiVersion", "kind")
	for i, f := range []struct{ path, value string }{{"apiVersion", rv.APIVersion()}, {"kind", rv.Resource.Kind}} {
		if got[i].Exists() && got[i].String() != "" {
			continue
		}
		if b, err := sjson.SetBytes(body, f.path, f.value); err == nil {
			body = b
		}
	}
	return body
}
