package crds

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestCRDDefaultsOnRead is Kubernetes' conformance test of defaulting
// "for requests and from storage", with more checks: a default added to
// a CRD's schema appears in an object stored before, on a get and in a
// list, while the object stays as stored (same resourceVersion); a
// default removed from the schema stays in objects written with it.
func TestCRDDefaultsOnRead(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Args: []string{"--crd-gate=false"}})
	dyn := harness.DynamicClient(t, s)
	crds := dyn.Resource(crdResource)
	const group = "defaults.crdapi.example.com"
	crd := thingsCRD(t, group)
	props := map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}
	setSchemaProps(t, crd, props)
	if _, err := crds.Create(t.Context(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	things := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "things"})
	var first *unstructured.Unstructured
	harness.Eventually(t, "things served", func() bool {
		var err error
		first, err = things.Create(t.Context(), thing(group, "first"), metav1.CreateOptions{})
		return err == nil
	})
	patchCRD(t, crds, "things."+group, `[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/a/default","value":"A"}]`)
	harness.Eventually(t, "a defaulted on read", func() bool { return field(t, things, "first", "a") == "A" })
	got, err := things.Get(t.Context(), "first", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetResourceVersion() != first.GetResourceVersion() {
		t.Errorf("the read wrote: resourceVersion %s, stored as %s", got.GetResourceVersion(), first.GetResourceVersion())
	}
	list, err := things.List(t.Context(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Object["a"] != "A" {
		t.Errorf("a list after the default was added: %v %v", list, err)
	}
	if _, err := things.Create(t.Context(), thing(group, "second"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patchCRD(t, crds, "things."+group, `[{"op":"remove","path":"/spec/versions/0/schema/openAPIV3Schema/properties/a/default"},`+
		`{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/b/default","value":"B"}]`)
	harness.Eventually(t, "b defaulted on read", func() bool { return field(t, things, "second", "b") == "B" })
	if a := field(t, things, "second", "a"); a != "A" {
		t.Errorf("a of the object written while it had a default: %q, want the stored A", a)
	}
	if a := field(t, things, "first", "a"); a != "" {
		t.Errorf("a of the object never written with its default, once the default is gone: %q, want none", a)
	}
}

func setSchemaProps(t *testing.T, crd *unstructured.Unstructured, props map[string]any) {
	t.Helper()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	v := versions[0].(map[string]any)
	if err := unstructured.SetNestedField(v, props, "schema", "openAPIV3Schema", "properties"); err != nil {
		t.Fatal(err)
	}
	unstructured.RemoveNestedField(v, "schema", "openAPIV3Schema", "x-kubernetes-preserve-unknown-fields")
	if err := unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
}

func thing(group, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Thing", "metadata": map[string]any{"name": name}}}
}

func patchCRD(t *testing.T, crds dynamic.NamespaceableResourceInterface, name, patch string) {
	t.Helper()
	if _, err := crds.Patch(t.Context(), name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// field is the top-level string field f of the thing named name, "" when
// it has none.
func field(t *testing.T, things dynamic.NamespaceableResourceInterface, name, f string) string {
	t.Helper()
	u, err := things.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := u.Object[f].(string)
	return v
}
