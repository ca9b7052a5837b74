package gotypes_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/schemas/builtin/gotypes"
)

func TestPatchMeta(t *testing.T) {
	tests := map[string]struct {
		gvk  schema.GroupVersionKind
		want bool
	}{
		"ConfigMap":          {schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, true},
		"Role":               {schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}, true},
		"Lease":              {schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, true},
		"events.k8s.io":      {schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, true},
		"CRD":                {schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, true},
		"custom resource":    {schema.GroupVersionKind{Group: "shop.example.com", Version: "v1", Kind: "Widget"}, false},
		"version not served": {schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1beta1", Kind: "Role"}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			meta, ok := gotypes.PatchMeta(tc.gvk)
			if ok != tc.want || (meta != nil) != tc.want || gotypes.Has(tc.gvk) != tc.want {
				t.Fatalf("PatchMeta(%v) = %v, %v; Has %v; want %v", tc.gvk, meta, ok, gotypes.Has(tc.gvk), tc.want)
			}
		})
	}
	// The tags are read: a RoleBinding's subjects have no merge key, an
	// object's finalizers merge.
	meta, _ := gotypes.PatchMeta(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"})
	if _, pm, err := meta.LookupPatchMetadataForSlice("subjects"); err != nil || pm.GetPatchMergeKey() != "" {
		t.Errorf("subjects: %v %v", pm, err)
	}
	md, _, err := meta.LookupPatchMetadataForStruct("metadata")
	if err != nil {
		t.Fatal(err)
	}
	if _, pm, err := md.LookupPatchMetadataForSlice("finalizers"); err != nil || len(pm.GetPatchStrategies()) != 1 || pm.GetPatchStrategies()[0] != "merge" {
		t.Errorf("finalizers: %v %v", pm, err)
	}
}
