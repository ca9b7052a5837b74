package api

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/specd-io/specd/test/e2e/harness"
)

// managers returns manager/operation[/subresource] -> fieldsV1 (compact
// JSON) of an object's managedFields.
func managers(t testing.TB, obj map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	list, _ := harness.Path(obj, "metadata", "managedFields").([]any)
	for _, e := range list {
		m := e.(map[string]any)
		key := fmt.Sprint(m["manager"], "/", m["operation"])
		if sub, ok := m["subresource"]; ok {
			key += fmt.Sprint("/", sub)
		}
		out[key] = harness.Compact(m["fieldsV1"])
	}
	return out
}

// getWidget reads a widget with kubectl, managed fields included.
func getWidget(t testing.TB, k *harness.Kubectl, name string) map[string]any {
	t.Helper()
	return harness.DecodeJSON(t, k.OK(t, "get", "widget", name, "-o", "json", "--show-managed-fields"))
}

func wantOutput(t testing.TB, got, want string) {
	t.Helper()
	if strings.TrimSpace(got) != want {
		t.Fatalf("kubectl printed %q, want %q", strings.TrimSpace(got), want)
	}
}

func wantField(t testing.TB, obj map[string]any, want any, keys ...string) {
	t.Helper()
	if got := harness.Path(obj, keys...); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s = %v, want %v", strings.Join(keys, "."), got, want)
	}
}

// TestKubectlPatch drives label, annotate, patch (merge, json, status,
// dry run and the errors) and both kinds of apply with the pinned kubectl,
// checking what is stored and the managed fields kubectl's writes leave.
func TestKubectlPatch(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	w1 := k.Manifest(t, "w1.yaml", harness.WidgetYAML("default", "w1"))
	wantOutput(t, k.OK(t, "create", "-f", w1), "widget.shop.example.com/w1 created")
	created := getWidget(t, k, "w1")
	if got := managers(t, created)["kubectl-create/Update"]; got !=
		`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:color":{},"f:size":{}}}` {
		t.Fatalf("managed fields of a create: %s", got)
	}

	t.Run("label and annotate", func(t *testing.T) {
		wantOutput(t, k.OK(t, "label", "widget", "w1", "tier=gold"), "widget.shop.example.com/w1 labeled")
		wantOutput(t, k.OK(t, "annotate", "widget", "w1", "note=hello"), "widget.shop.example.com/w1 annotated")
		obj := getWidget(t, k, "w1")
		wantField(t, obj, "gold", "metadata", "labels", "tier")
		wantField(t, obj, "hello", "metadata", "annotations", "note")
		m := managers(t, obj)
		if m["kubectl-label/Update"] != `{"f:metadata":{"f:labels":{"f:tier":{}}}}` ||
			m["kubectl-annotate/Update"] != `{"f:metadata":{"f:annotations":{".":{},"f:note":{}}}}` {
			t.Fatalf("managed fields: %v", m)
		}
		wantOutput(t, k.OK(t, "label", "widget", "w1", "tier-"), "widget.shop.example.com/w1 unlabeled")
		wantField(t, getWidget(t, k, "w1"), nil, "metadata", "labels", "tier")
	})

	t.Run("patch --type=merge", func(t *testing.T) {
		wantOutput(t, k.OK(t, "patch", "widget", "w1", "--type=merge", "-p", `{"spec":{"size":6}}`), "widget.shop.example.com/w1 patched")
		obj := getWidget(t, k, "w1")
		wantField(t, obj, 6, "spec", "size")
		wantField(t, obj, 2, "metadata", "generation")
		if got := managers(t, obj)["kubectl-patch/Update"]; got != `{"f:spec":{"f:size":{}}}` {
			t.Fatalf("kubectl-patch owns %s", got)
		}
	})

	t.Run("patch --type=json", func(t *testing.T) {
		ops := `[{"op":"test","path":"/spec/size","value":6},{"op":"replace","path":"/spec/size","value":7},{"op":"add","path":"/spec/tags","value":["x"]}]`
		wantOutput(t, k.OK(t, "patch", "widget", "w1", "--type=json", "-p", ops), "widget.shop.example.com/w1 patched")
		obj := getWidget(t, k, "w1")
		wantField(t, obj, 7, "spec", "size")
		wantField(t, obj, "[x]", "spec", "tags")
	})

	t.Run("patch errors leave the object", func(t *testing.T) {
		before := k.OK(t, "get", "widget", "w1", "-o", "json")
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--type=json", "-p", `[{"op":"test","path":"/spec/size","value":1}]`},
				"The request is invalid: the server rejected our request due to an error in our request"},
			{[]string{"--type=strategic", "-p", `{"spec":{"size":8}}`},
				"error: application/strategic-merge-patch+json is not supported by shop.example.com/v1, Kind=Widget: " +
					"the body of the request was in an unknown format - accepted media types include: " +
					"application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
			{[]string{"--type=merge", "-p", `{"spec":{"size":0}}`},
				`The Widget "w1" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`},
			{[]string{"--type=merge", "-p", `{"spec":{"size":50}}`, "--dry-run=server"}, ""},
		} {
			r := k.Run(t, append([]string{"patch", "widget", "w1"}, tc.args...)...)
			if tc.want == "" {
				if r.Code != 0 || strings.TrimSpace(r.Stdout) != "widget.shop.example.com/w1 patched" {
					t.Errorf("dry run:\n%s", r)
				}
			} else if r.Code == 0 || strings.TrimSpace(r.Stderr) != tc.want {
				t.Errorf("kubectl patch %v:\n%s\nwant stderr %q", tc.args, r, tc.want)
			}
			if after := k.OK(t, "get", "widget", "w1", "-o", "json"); after != before {
				t.Fatalf("kubectl patch %v changed the object:\n%s\n%s", tc.args, before, after)
			}
		}
	})

	t.Run("patch --subresource=status", func(t *testing.T) {
		wantOutput(t, k.OK(t, "patch", "widget", "w1", "--subresource=status", "--type=merge", "-p",
			`{"status":{"phase":"Ready"},"spec":{"size":99}}`), "widget.shop.example.com/w1 patched")
		obj := getWidget(t, k, "w1")
		wantField(t, obj, "Ready", "status", "phase")
		wantField(t, obj, 7, "spec", "size")
		if got := managers(t, obj)["kubectl-patch/Update/status"]; got != `{"f:status":{".":{},"f:phase":{}}}` {
			t.Fatalf("status patch owns %s", got)
		}
		// The main endpoint does not change status.
		wantOutput(t, k.OK(t, "patch", "widget", "w1", "--type=merge", "-p", `{"status":{"phase":"Gone"}}`),
			"widget.shop.example.com/w1 patched (no change)")
		wantField(t, getWidget(t, k, "w1"), "Ready", "status", "phase")
	})

	t.Run("apply", func(t *testing.T) {
		first := k.Manifest(t, "a1.yaml", "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: csa\nspec:\n  color: green\n  size: 4\n  tags: [a, b]\n")
		second := k.Manifest(t, "a2.yaml", "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: csa\nspec:\n  color: green\n  size: 5\n")
		wantOutput(t, k.OK(t, "apply", "-f", first), "widget.shop.example.com/csa created")
		wantOutput(t, k.OK(t, "apply", "-f", first), "widget.shop.example.com/csa unchanged")
		wantOutput(t, k.OK(t, "apply", "-f", second), "widget.shop.example.com/csa configured")
		obj := getWidget(t, k, "csa")
		wantField(t, obj, 5, "spec", "size")
		wantField(t, obj, nil, "spec", "tags")
		last, _ := harness.Path(obj, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration").(string)
		if !strings.Contains(last, `"size":5`) {
			t.Fatalf("last-applied-configuration %q", last)
		}
		if _, ok := managers(t, obj)["kubectl-client-side-apply/Update"]; !ok {
			t.Fatalf("managers %v", managers(t, obj))
		}

		// Moving to server-side apply: kubectl takes the client-side
		// apply's fields over, and the annotation follows what was applied.
		third := k.Manifest(t, "a3.yaml", "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: csa\nspec:\n  color: blue\n  size: 5\n")
		wantOutput(t, k.OK(t, "apply", "--server-side", "-f", third), "widget.shop.example.com/csa serverside-applied")
		obj = getWidget(t, k, "csa")
		wantField(t, obj, "blue", "spec", "color")
		last, _ = harness.Path(obj, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration").(string)
		if !strings.Contains(last, `"color":"blue"`) {
			t.Fatalf("last-applied-configuration after server-side apply: %q", last)
		}
		if got := managers(t, obj)["kubectl/Apply"]; !strings.Contains(got, `"f:color":{}`) {
			t.Fatalf("kubectl applied %s", got)
		}
	})

	t.Run("apply --server-side", func(t *testing.T) {
		manifest := func(name string, size int) string {
			return k.Manifest(t, fmt.Sprintf("%s-%d.yaml", name, size), fmt.Sprintf(
				"apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: %s\nspec:\n  color: green\n  size: %d\n  tags: [a]\n", name, size))
		}
		wantOutput(t, k.OK(t, "apply", "--server-side", "-f", manifest("ssa", 4)), "widget.shop.example.com/ssa serverside-applied")
		wantOutput(t, k.OK(t, "apply", "--server-side", "-f", manifest("ssa", 9)), "widget.shop.example.com/ssa serverside-applied")
		obj := getWidget(t, k, "ssa")
		wantField(t, obj, 9, "spec", "size")
		wantField(t, obj, 2, "metadata", "generation")
		if got := managers(t, obj)["kubectl/Apply"]; got != `{"f:spec":{"f:color":{},"f:size":{},"f:tags":{}}}` {
			t.Fatalf("kubectl applied %s", got)
		}

		conflict := manifest("ssa", 11)
		r := k.Run(t, "apply", "--server-side", "--field-manager=other", "-f", conflict)
		if r.Code == 0 || !strings.HasPrefix(r.Stderr, "error: Apply failed with 1 conflict: conflict with \"kubectl\": .spec.size\n"+
			"Please review the fields above--they currently have other managers.") {
			t.Fatalf("a conflicting apply:\n%s", r)
		}
		wantField(t, getWidget(t, k, "ssa"), 9, "spec", "size")

		wantOutput(t, k.OK(t, "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", conflict),
			"widget.shop.example.com/ssa serverside-applied")
		obj = getWidget(t, k, "ssa")
		wantField(t, obj, 11, "spec", "size")
		m := managers(t, obj)
		if m["kubectl/Apply"] != `{"f:spec":{"f:color":{},"f:tags":{}}}` || m["other/Apply"] != `{"f:spec":{"f:color":{},"f:size":{},"f:tags":{}}}` {
			t.Fatalf("managers after --force-conflicts: %v", m)
		}
	})
}

// TestClientGoPatch patches and applies with client-go's dynamic client:
// merge and JSON patches, a status patch, an apply that creates, a
// conflicting apply and a forced one.
func TestClientGoPatch(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	ctx := harness.Context(t, time.Minute)
	wd := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("default")
	if _, err := wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("default", "p1")}, metav1.CreateOptions{FieldManager: "creator"}); err != nil {
		t.Fatal(err)
	}
	got, err := wd.Patch(ctx, "p1", types.MergePatchType, []byte(`{"spec":{"size":6}}`), metav1.PatchOptions{FieldManager: "merger"})
	if err != nil || harness.Path(got.Object, "spec", "size") != int64(6) {
		t.Fatalf("merge patch: %v %v", err, got)
	}
	got, err = wd.Patch(ctx, "p1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/color","value":"blue"}]`), metav1.PatchOptions{})
	if err != nil || harness.Path(got.Object, "spec", "color") != "blue" {
		t.Fatalf("json patch: %v %v", err, got)
	}
	got, err = wd.Patch(ctx, "p1", types.MergePatchType, []byte(`{"status":{"phase":"Ready"}}`), metav1.PatchOptions{}, "status")
	if err != nil || harness.Path(got.Object, "status", "phase") != "Ready" {
		t.Fatalf("status patch: %v %v", err, got)
	}
	_, err = wd.Patch(ctx, "p1", types.StrategicMergePatchType, []byte(`{}`), metav1.PatchOptions{})
	if st := harness.StatusOf(err); !apierrors.IsUnsupportedMediaType(err) || st.Code != 415 || st.Message != "the body of the request was in an unknown format - "+
		"accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" {
		t.Fatalf("strategic merge patch: %v", err)
	}

	cfg := &unstructured.Unstructured{Object: map[string]any{"apiVersion": harness.Widgets.APIVersion(), "kind": harness.Widgets.Kind,
		"metadata": map[string]any{"name": "p2"}, "spec": map[string]any{"color": "green", "size": int64(2)}}}
	applied, err := wd.Apply(ctx, "p2", cfg, metav1.ApplyOptions{FieldManager: "cg"})
	if err != nil || applied.GetGeneration() != 1 || len(applied.GetManagedFields()) != 1 || applied.GetManagedFields()[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Fatalf("apply: %v %v", err, applied)
	}
	other := cfg.DeepCopy()
	_ = unstructured.SetNestedField(other.Object, int64(3), "spec", "size")
	_, err = wd.Apply(ctx, "p2", other, metav1.ApplyOptions{FieldManager: "other"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("conflicting apply: %v", err)
	}
	if c, ok := harness.CauseOn(err, ".spec.size"); !ok || c.Type != metav1.CauseTypeFieldManagerConflict || c.Message != `conflict with "cg"` {
		t.Fatalf("conflict causes: %v", harness.StatusOf(err))
	}
	forced, err := wd.Apply(ctx, "p2", other, metav1.ApplyOptions{FieldManager: "other", Force: true})
	if err != nil || harness.Path(forced.Object, "spec", "size") != int64(3) {
		t.Fatalf("forced apply: %v %v", err, forced)
	}
}
