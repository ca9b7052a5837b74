package openapi

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMetaSchemas(t *testing.T) {
	meta, scale := metaSchemas(true)
	tests := map[string]struct {
		schema   map[string]any
		required []string
		props    []string
	}{
		"ObjectMeta": {schema: meta[nameObjMeta].(map[string]any),
			props: []string{"annotations", "creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "finalizers",
				"generateName", "generation", "labels", "managedFields", "name", "namespace", "ownerReferences", "resourceVersion", "selfLink", "uid"}},
		"OwnerReference": {schema: meta[metaPrefix+"OwnerReference"].(map[string]any),
			required: []string{"apiVersion", "kind", "name", "uid"},
			props:    []string{"apiVersion", "blockOwnerDeletion", "controller", "kind", "name", "uid"}},
		"Status, with TypeMeta inlined": {schema: meta[nameStatus].(map[string]any),
			props: []string{"apiVersion", "code", "details", "kind", "message", "metadata", "reason", "status"}},
		"WatchEvent": {schema: meta[nameWatch].(map[string]any), required: []string{"type", "object"}, props: []string{"object", "type"}},
		"Scale":      {schema: scale[nameScale].(map[string]any), props: []string{"apiVersion", "kind", "metadata", "spec", "status"}},
		"ScaleStatus": {schema: scale["io.k8s.api.autoscaling.v1.ScaleStatus"].(map[string]any),
			required: []string{"replicas"}, props: []string{"replicas", "selector"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			props := tc.schema["properties"].(map[string]any)
			if got := slices.Sorted(maps.Keys(props)); !slices.Equal(got, tc.props) {
				t.Errorf("properties %v, want %v", got, tc.props)
			}
			got, _ := tc.schema["required"].([]string)
			if !slices.Equal(got, tc.required) {
				t.Errorf("required %v, want %v", got, tc.required)
			}
			if tc.schema["description"] == "" {
				t.Error("no description")
			}
		})
	}
	if _, ok := scale[nameObjMeta]; ok {
		t.Error("ObjectMeta is in the Scale schemas too")
	}
	if again, _ := metaSchemas(false); reflect.ValueOf(again).Pointer() != reflect.ValueOf(meta).Pointer() {
		t.Error("the meta schemas are built twice")
	}
}

func TestGoTypeName(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{metav1.ObjectMeta{}, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{autoscalingv1.Scale{}, "io.k8s.api.autoscaling.v1.Scale"},
	} {
		if got := goTypeName(reflect.TypeOf(tc.v)); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.v, got, tc.want)
		}
	}
}
