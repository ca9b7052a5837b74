package clients

import (
	"fmt"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestClientGo drives one specd with client-go: the dynamic client, its
// typed errors, and discovery.
func TestClientGo(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	harness.CreateNamespaces(t, s, "team-b", "pages", "status", "errors")
	dyn := harness.DynamicClient(t, s)

	t.Run("namespaced CRUD", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		wd := dyn.Resource(harness.Widgets.GVR())
		created, err := wd.Namespace("default").Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("default", "cg1")}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetCreationTimestamp().Time.IsZero() {
			t.Errorf("create answered without uid, resourceVersion or creationTimestamp: %v", created.Object)
		}
		if created.GetNamespace() != "default" || created.GetName() != "cg1" || created.GetKind() != harness.Widgets.Kind || created.GetAPIVersion() != harness.Widgets.APIVersion() {
			t.Errorf("create answered %s %s %s/%s", created.GetAPIVersion(), created.GetKind(), created.GetNamespace(), created.GetName())
		}
		if _, err := wd.Namespace("team-b").Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("team-b", "cg2")}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create in team-b: %v", err)
		}

		got, err := wd.Namespace("default").Get(ctx, "cg1", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
			t.Errorf("get: uid/resourceVersion %s/%s, created %s/%s", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
		}
		if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "red" {
			t.Errorf("get: spec.color = %q", color)
		}

		list, err := wd.Namespace("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if names := harness.ItemKeys(list); !slices.Equal(names, []string{"default/cg1"}) {
			t.Errorf("list in default: %v", names)
		}
		if list.GetResourceVersion() == "" {
			t.Errorf("list has no metadata.resourceVersion")
		}
		all, err := wd.Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list across namespaces: %v", err)
		}
		if names := harness.ItemKeys(all); !slices.Equal(names, []string{"default/cg1", "team-b/cg2"}) {
			t.Errorf("list across namespaces: %v", names)
		}

		if err := unstructured.SetNestedField(got.Object, "blue", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		updated, err := wd.Namespace("default").Update(ctx, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if color, _, _ := unstructured.NestedString(updated.Object, "spec", "color"); color != "blue" {
			t.Errorf("update answered spec.color = %q", color)
		}
		if updated.GetResourceVersion() == got.GetResourceVersion() {
			t.Errorf("update kept resourceVersion %s", got.GetResourceVersion())
		}

		if err := wd.Namespace("default").Delete(ctx, "cg1", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := wd.Namespace("default").Get(ctx, "cg1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: %v, want NotFound", err)
		}
		all, err = wd.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list across namespaces: %v", err)
		}
		if names := harness.ItemKeys(all); !slices.Equal(names, []string{"team-b/cg2"}) {
			t.Errorf("list across namespaces after delete: %v", names)
		}
	})

	t.Run("cluster-scoped CRUD", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		wh := dyn.Resource(harness.Warehouses.GVR())
		created, err := wh.Create(ctx, &unstructured.Unstructured{Object: harness.WarehouseObject("cg-wh")}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if created.GetNamespace() != "" {
			t.Errorf("a cluster-scoped object got namespace %q", created.GetNamespace())
		}
		got, err := wh.Get(ctx, "cg-wh", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		list, err := wh.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if names := harness.ItemKeys(list); !slices.Equal(names, []string{"cg-wh"}) {
			t.Errorf("list: %v", names)
		}
		if err := unstructured.SetNestedField(got.Object, int64(900), "spec", "capacity"); err != nil {
			t.Fatal(err)
		}
		updated, err := wh.Update(ctx, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if capacity, _, _ := unstructured.NestedInt64(updated.Object, "spec", "capacity"); capacity != 900 {
			t.Errorf("update answered spec.capacity = %d, want 900", capacity)
		}
		if err := wh.Delete(ctx, "cg-wh", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := wh.Get(ctx, "cg-wh", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: %v, want NotFound", err)
		}
	})

	t.Run("list in pages", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		wd := dyn.Resource(harness.Widgets.GVR()).Namespace("pages")
		var want []string
		for i := range 5 {
			name := fmt.Sprintf("page-%d", i)
			want = append(want, "pages/"+name)
			if _, err := wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("pages", name)}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create %s: %v", name, err)
			}
		}
		var got []string
		var pageSizes []int
		opts := metav1.ListOptions{Limit: 2}
		for range 10 {
			page, err := wd.List(ctx, opts)
			if err != nil {
				t.Fatalf("list with limit 2, continue %q: %v", opts.Continue, err)
			}
			got = append(got, harness.ItemKeys(page)...)
			pageSizes = append(pageSizes, len(page.Items))
			if remaining := page.GetRemainingItemCount(); page.GetContinue() != "" &&
				(remaining == nil || *remaining != int64(5-len(got))) {
				t.Errorf("after %d items remainingItemCount is %v, want %d", len(got), remaining, 5-len(got))
			}
			if opts.Continue = page.GetContinue(); opts.Continue == "" {
				break
			}
		}
		if !slices.Equal(got, want) || !slices.Equal(pageSizes, []int{2, 2, 1}) {
			t.Errorf("pages of %v held %v, want pages of [2 2 1] holding %v", pageSizes, got, want)
		}
	})

	t.Run("status subresource", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		wd := dyn.Resource(harness.Widgets.GVR()).Namespace("status")
		obj := harness.WidgetObject("status", "st")
		obj["status"] = map[string]any{"phase": "Ready"}
		created, err := wd.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(created.Object, "status", "phase"); found {
			t.Errorf("create kept status.phase although widgets have a status subresource: %v", created.Object["status"])
		}
		if err := unstructured.SetNestedField(created.Object, "Building", "status", "phase"); err != nil {
			t.Fatal(err)
		}
		updated, err := wd.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update status: %v", err)
		}
		if phase, _, _ := unstructured.NestedString(updated.Object, "status", "phase"); phase != "Building" {
			t.Errorf("update status answered status.phase %q, want Building", phase)
		}
		if updated.GetGeneration() != created.GetGeneration() {
			t.Errorf("a status update moved generation %d -> %d", created.GetGeneration(), updated.GetGeneration())
		}
		// The main endpoint ignores status, and the status endpoint ignores spec.
		if err := unstructured.SetNestedField(updated.Object, "Ready", "status", "phase"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(updated.Object, "green", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		again, err := wd.Update(ctx, updated, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if phase, _, _ := unstructured.NestedString(again.Object, "status", "phase"); phase != "Building" {
			t.Errorf("update of the main resource changed status.phase to %q", phase)
		}
		if color, _, _ := unstructured.NestedString(again.Object, "spec", "color"); color != "green" {
			t.Errorf("update answered spec.color %q, want green", color)
		}
		if again.GetGeneration() != created.GetGeneration()+1 {
			t.Errorf("a spec update moved generation %d -> %d, want +1", created.GetGeneration(), again.GetGeneration())
		}
		got, err := wd.Get(ctx, "st", metav1.GetOptions{}, "status")
		if err != nil {
			t.Fatalf("get status: %v", err)
		}
		if got.GetResourceVersion() != again.GetResourceVersion() {
			t.Errorf("get status: resourceVersion %s, want %s", got.GetResourceVersion(), again.GetResourceVersion())
		}
	})

	t.Run("typed errors", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		wd := dyn.Resource(harness.Widgets.GVR()).Namespace("errors")
		first, err := wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("errors", "taken")}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}

		_, err = wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("errors", "taken")}, metav1.CreateOptions{})
		harness.CheckStatusError(t, "create a taken name", err, apierrors.IsAlreadyExists, 409, metav1.StatusReasonAlreadyExists,
			&metav1.StatusDetails{Name: "taken", Group: harness.Widgets.Group, Kind: harness.Widgets.Plural},
			`widgets.shop.example.com "taken" already exists`)

		_, err = wd.Get(ctx, "missing", metav1.GetOptions{})
		harness.CheckStatusError(t, "get a missing object", err, apierrors.IsNotFound, 404, metav1.StatusReasonNotFound,
			&metav1.StatusDetails{Name: "missing", Group: harness.Widgets.Group, Kind: harness.Widgets.Plural},
			`widgets.shop.example.com "missing" not found`)

		err = wd.Delete(ctx, "missing", metav1.DeleteOptions{})
		harness.CheckStatusError(t, "delete a missing object", err, apierrors.IsNotFound, 404, metav1.StatusReasonNotFound,
			&metav1.StatusDetails{Name: "missing", Group: harness.Widgets.Group, Kind: harness.Widgets.Plural},
			`widgets.shop.example.com "missing" not found`)

		bad := harness.WidgetObject("errors", "invalid")
		bad["spec"] = harness.InvalidWidget.Spec
		_, err = wd.Create(ctx, &unstructured.Unstructured{Object: bad}, metav1.CreateOptions{})
		harness.CheckStatusError(t, "create an invalid object", err, apierrors.IsInvalid, 422, metav1.StatusReasonInvalid,
			&metav1.StatusDetails{Name: "invalid", Group: harness.Widgets.Group, Kind: harness.Widgets.Kind},
			`Widget.shop.example.com "invalid" is invalid: `+harness.InvalidWidget.Cause)
		if cause, ok := harness.CauseOn(err, harness.InvalidWidget.Field); !ok {
			t.Errorf("invalid: no cause on %s in %+v", harness.InvalidWidget.Field, harness.StatusOf(err).Details)
		} else if cause.Type != metav1.CauseTypeFieldValueInvalid {
			t.Errorf("invalid: cause type %q, want %q", cause.Type, metav1.CauseTypeFieldValueInvalid)
		}
		if _, err := wd.Get(ctx, "invalid", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("an invalid object was stored: get answered %v", err)
		}

		// Update from a stale copy: first write wins, the second conflicts.
		fresh := first.DeepCopy()
		if err := unstructured.SetNestedField(fresh.Object, "blue", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		if _, err := wd.Update(ctx, fresh, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update: %v", err)
		}
		if err := unstructured.SetNestedField(first.Object, "green", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		_, err = wd.Update(ctx, first, metav1.UpdateOptions{})
		harness.CheckStatusError(t, "update from a stale resourceVersion", err, apierrors.IsConflict, 409, metav1.StatusReasonConflict,
			&metav1.StatusDetails{Name: "taken", Group: harness.Widgets.Group, Kind: harness.Widgets.Plural},
			`Operation cannot be fulfilled on widgets.shop.example.com "taken": the object has been modified; please apply your changes to the latest version and try again`)
		got, err := wd.Get(ctx, "taken", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "blue" {
			t.Errorf("after a conflict spec.color = %q, want blue", color)
		}

		// Update of an object that is not there.
		ghost := &unstructured.Unstructured{Object: harness.WidgetObject("errors", "ghost")}
		ghost.SetResourceVersion(got.GetResourceVersion())
		_, err = wd.Update(ctx, ghost, metav1.UpdateOptions{})
		harness.CheckStatusError(t, "update a missing object", err, apierrors.IsNotFound, 404, metav1.StatusReasonNotFound,
			&metav1.StatusDetails{Name: "ghost", Group: harness.Widgets.Group, Kind: harness.Widgets.Plural},
			`widgets.shop.example.com "ghost" not found`)
	})

	t.Run("discovery", func(t *testing.T) {
		dc, err := discovery.NewDiscoveryClientForConfig(harness.RestConfig(s))
		if err != nil {
			t.Fatal(err)
		}
		groups, resources, err := dc.ServerGroupsAndResources()
		if err != nil {
			t.Fatalf("ServerGroupsAndResources: %v", err)
		}
		preferred := map[string]string{}
		for _, g := range groups {
			preferred[g.Name] = g.PreferredVersion.GroupVersion
		}
		for _, r := range harness.ExampleResources {
			if preferred[r.Group] != r.APIVersion() {
				t.Errorf("group %s: preferred version %q, want %q", r.Group, preferred[r.Group], r.APIVersion())
			}
			found := harness.FindAPIResource(resources, r.APIVersion(), r.Plural)
			if found == nil {
				t.Errorf("discovery has no %s in %s", r.Plural, r.APIVersion())
				continue
			}
			if found.Kind != r.Kind || found.Namespaced != r.Namespaced || found.SingularName != r.Singular ||
				!slices.Equal(found.ShortNames, r.ShortNames) {
				t.Errorf("discovery of %s: %+v, want kind %s namespaced %v singular %s shortNames %v",
					r.GroupResource(), *found, r.Kind, r.Namespaced, r.Singular, r.ShortNames)
			}
			for _, verb := range []string{"create", "delete", "get", "list", "update"} {
				if !slices.Contains(found.Verbs, verb) {
					t.Errorf("discovery of %s: verbs %v lack %q", r.GroupResource(), found.Verbs, verb)
				}
			}
		}
		if harness.FindAPIResource(resources, harness.Widgets.APIVersion(), "widgets/status") == nil {
			t.Errorf("discovery has no widgets/status subresource")
		}

		mapper := restmapper.NewShortcutExpander(
			restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), dc, nil)
		for arg, want := range map[string]schema.GroupVersionResource{
			"wg":                        harness.Widgets.GVR(),
			"wh":                        harness.Warehouses.GVR(),
			"bk":                        harness.LibraryBooks.GVR(),
			"widget":                    harness.Widgets.GVR(),
			"warehouses":                harness.Warehouses.GVR(),
			"books.library.example.com": harness.LibraryBooks.GVR(),
			"books.shop.example.com":    harness.ShopBooks.GVR(),
		} {
			// As kubectl does: a.b.c may be resource.version.group; if
			// not, it is resource.group.
			gvr, gr := schema.ParseResourceArg(arg)
			got, err := schema.GroupVersionResource{}, error(nil)
			if gvr != nil {
				got, err = mapper.ResourceFor(*gvr)
			}
			if gvr == nil || err != nil {
				got, err = mapper.ResourceFor(gr.WithVersion(""))
			}
			if err != nil {
				t.Errorf("RESTMapper ResourceFor(%q): %v", arg, err)
			} else if got != want {
				t.Errorf("RESTMapper ResourceFor(%q) = %v, want %v", arg, got, want)
			}
		}
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: harness.Warehouses.Group, Kind: harness.Warehouses.Kind})
		if err != nil {
			t.Fatalf("RESTMapping(Warehouse): %v", err)
		}
		if mapping.Resource != harness.Warehouses.GVR() || mapping.Scope.Name() != meta.RESTScopeNameRoot {
			t.Errorf("RESTMapping(Warehouse) = %v scope %s", mapping.Resource, mapping.Scope.Name())
		}
	})
}
