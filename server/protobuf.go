package server

import (
	"encoding/json"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/specd-io/specd/schemas"
)

// contentTypeProtobuf is what client-go's typed clients (kubectl create
// role, rolebinding...) send the built-in kinds as.
const contentTypeProtobuf = "application/vnd.kubernetes.protobuf"

// protobufKinds are the Go types of the built-in kinds whose protobuf
// bodies specd reads. Only a body is decoded this way, once, to JSON;
// objects are JSON from there on, as every other object is.
var protobufKinds = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{rbacv1.AddToScheme, corev1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // registering generated types cannot fail
		}
	}
	return s
}()

// protobufToJSON turns a protobuf body of a built-in kind into the JSON
// kube would have read, apiVersion and kind included.
func protobufToJSON(body []byte) ([]byte, error) {
	obj, gvk, err := protobuf.NewSerializer(protobufKinds, protobufKinds).Decode(body, nil, nil)
	if err != nil {
		return nil, badRequest("the request body is not a protobuf object of a built-in kind: %v", err)
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return json.Marshal(obj)
}

// protobufDeleteOptions decodes the protobuf DeleteOptions of a typed
// client's delete into into, and returns it as JSON.
func protobufDeleteOptions(body []byte, into *metav1.DeleteOptions) ([]byte, error) {
	if _, _, err := protobuf.NewSerializer(protobufKinds, protobufKinds).Decode(body, nil, into); err != nil {
		return nil, badRequest("decoding DeleteOptions: %v", err)
	}
	return json.Marshal(into)
}

// hasProtobuf reports whether bodies of rv may be protobuf: rv is a
// built-in kind with generated Go types.
func hasProtobuf(rv *schemas.ResourceVersion) bool {
	gvk := schema.GroupVersionKind{Group: rv.Resource.Group, Version: rv.Version, Kind: rv.Resource.Kind}
	return protobufKinds.Recognizes(gvk)
}
