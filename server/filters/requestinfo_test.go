package filters

import (
	"net/http"
	"reflect"
	"testing"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// TestRequestInfoOfSpecdURLs checks what the authorizer is asked for each
// shape of specd's URLs.
func TestRequestInfoOfSpecdURLs(t *testing.T) {
	url, authz := serve(t, http.HandlerFunc(echo), Config{})
	const g = "/apis/shop.example.com/v1"
	tests := map[string]struct {
		method, path string
		want         authorizer.AttributesRecord
	}{
		"list namespaced": {http.MethodGet, g + "/namespaces/default/widgets",
			res("list", "default", "widgets", "", "")},
		"list all namespaces": {http.MethodGet, g + "/widgets",
			res("list", "", "widgets", "", "")},
		"get": {http.MethodGet, g + "/namespaces/default/widgets/w1",
			res("get", "default", "widgets", "", "w1")},
		"watch by parameter": {http.MethodGet, g + "/namespaces/default/widgets?watch=true",
			res("watch", "default", "widgets", "", "")},
		"watch one by field selector": {http.MethodGet, g + "/namespaces/default/widgets?watch=1&fieldSelector=metadata.name%3Dw1",
			res("watch", "default", "widgets", "", "w1")},
		"create": {http.MethodPost, g + "/namespaces/default/widgets",
			res("create", "default", "widgets", "", "")},
		"update": {http.MethodPut, g + "/namespaces/default/widgets/w1",
			res("update", "default", "widgets", "", "w1")},
		"patch": {http.MethodPatch, g + "/namespaces/default/widgets/w1",
			res("patch", "default", "widgets", "", "w1")},
		"delete": {http.MethodDelete, g + "/namespaces/default/widgets/w1",
			res("delete", "default", "widgets", "", "w1")},
		"deletecollection": {http.MethodDelete, g + "/namespaces/default/widgets",
			res("deletecollection", "default", "widgets", "", "")},
		"status": {http.MethodPut, g + "/namespaces/default/widgets/w1/status",
			res("update", "default", "widgets", "status", "w1")},
		"scale": {http.MethodGet, g + "/namespaces/default/widgets/w1/scale",
			res("get", "default", "widgets", "scale", "w1")},
		"cluster-scoped": {http.MethodGet, g + "/warehouses/main",
			res("get", "", "warehouses", "", "main")},
		"cluster-scoped status patch": {http.MethodPatch, g + "/warehouses/main/status",
			res("patch", "", "warehouses", "status", "main")},
		"discovery": {http.MethodGet, "/apis/shop.example.com",
			authorizer.AttributesRecord{Verb: "get", Path: "/apis/shop.example.com"}},
		"openapi": {http.MethodGet, "/openapi/v3/apis/shop.example.com/v1",
			authorizer.AttributesRecord{Verb: "get", Path: "/openapi/v3/apis/shop.example.com/v1"}},
		"non-resource post": {http.MethodPost, "/metrics",
			authorizer.AttributesRecord{Verb: "post", Path: "/metrics"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if code, body := do(t, tc.method, url+tc.path, "alice-token"); code != http.StatusOK {
				t.Fatalf("got %d %s", code, body)
			}
			if got := record(authz.lastAttributes()); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("authorizer asked\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func res(verb, ns, resource, sub, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		Verb: verb, Namespace: ns, APIGroup: "shop.example.com", APIVersion: "v1",
		Resource: resource, Subresource: sub, Name: name, ResourceRequest: true,
	}
}

// record keeps the attributes a test compares; the path only for
// non-resource requests, as RBAC reads it only there.
func record(a authorizer.Attributes) authorizer.AttributesRecord {
	r := authorizer.AttributesRecord{
		Verb: a.GetVerb(), Namespace: a.GetNamespace(), APIGroup: a.GetAPIGroup(),
		APIVersion: a.GetAPIVersion(), Resource: a.GetResource(), Subresource: a.GetSubresource(),
		Name: a.GetName(), ResourceRequest: a.IsResourceRequest(),
	}
	if !r.ResourceRequest {
		r.Path = a.GetPath()
	}
	return r
}
