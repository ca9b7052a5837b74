package filters

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// statusSerializer writes the Status of the chain's own answers (401, 403,
// 429, 504) in the encoding the client asked for (JSON, YAML, protobuf),
// as kube-apiserver's does: the library filters take a
// runtime.NegotiatedSerializer, and a scheme of the meta types is all they
// encode. It is the converting codec factory, not WithoutConversion: that
// one drops the Status's apiVersion on non-resource paths, kube's keeps v1.
func statusSerializer() runtime.NegotiatedSerializer {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(scheme)
}
