package namespace_test

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

// condition returns the namespace's condition of type t as
// "status reason: message".
func condition(obj []byte, t string) string {
	for _, c := range gjson.GetBytes(obj, "status.conditions").Array() {
		if c.Get("type").Str == t {
			return c.Get("status").Str + " " + c.Get("reason").Str + ": " + c.Get("message").Str
		}
	}
	return ""
}

// TestDeleteNamespaceWithContent: deleting a namespace that holds objects
// of three resources (one built-in), one of them held by a finalizer,
// deletes the others at once and keeps the namespace Terminating, its
// conditions naming the finalizer; removing the finalizer lets everything
// go, the namespace last. Other namespaces keep their objects.
func TestDeleteNamespaceWithContent(t *testing.T) {
	e := newEnv(t)
	e.start(t, true)
	ctx := context.Background()
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("doomed"))
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("kept"))
	for _, ns := range []string{"doomed", "kept"} {
		e.mustCreate(t, ns, "tools.example.com", "hammers", hammer("plain"))
		e.mustCreate(t, ns, "tools.example.com", "hammers", hammer("held", "example.com/cleanup"))
		e.mustCreate(t, ns, "things.example.com", "things", thing("t"))
		e.mustCreate(t, ns, "", "configmaps", configMap("c"))
	}
	nsRV := e.rv("", "namespaces")
	if _, err := e.store.Delete(ctx, engine.Ref{Version: nsRV, Namespace: "", Name: "doomed"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	const held = "True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/cleanup in 1 resource instances"
	var ns []byte
	eventually(t, "the conditions name the finalizer", func() bool {
		ns, _ = e.get("", "", "namespaces", "doomed")
		return condition(ns, "NamespaceFinalizersRemaining") == held
	})
	if got, want := condition(ns, "NamespaceContentRemaining"), "True SomeResourcesRemain: Some resources are remaining: hammers.tools.example.com has 1 resource instances"; got != want {
		t.Errorf("NamespaceContentRemaining = %q, want %q", got, want)
	}
	if got, want := condition(ns, "NamespaceDeletionContentFailure"), "False ContentDeleted: All content successfully deleted, may be waiting on finalization"; got != want {
		t.Errorf("NamespaceDeletionContentFailure = %q, want %q", got, want)
	}
	if gjson.GetBytes(ns, "status.phase").Str != "Terminating" || gjson.GetBytes(ns, "spec.finalizers.0").Str != "kubernetes" {
		t.Fatalf("namespace %s, want it Terminating with its finalizer", ns)
	}
	for _, c := range []struct{ group, plural, name string }{{"tools.example.com", "hammers", "plain"}, {"things.example.com", "things", "t"}, {"", "configmaps", "c"}} {
		if _, err := e.get("doomed", c.group, c.plural, c.name); !apierrors.IsNotFound(err) {
			t.Errorf("%s %s in the Terminating namespace: %v, want it deleted", c.plural, c.name, err)
		}
	}
	obj, err := e.get("doomed", "tools.example.com", "hammers", "held")
	if err != nil || !gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("held hammer %s, %v: want it marked for deletion", obj, err)
	}
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := e.store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: e.rv("tools.example.com", "hammers"), Namespace: "doomed", Name: "held"}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace goes", func() bool {
		_, err := e.get("", "", "namespaces", "doomed")
		return apierrors.IsNotFound(err)
	})
	for _, c := range []struct{ group, plural, name string }{{"tools.example.com", "hammers", "plain"}, {"tools.example.com", "hammers", "held"}, {"things.example.com", "things", "t"}, {"", "configmaps", "c"}} {
		if _, err := e.get("kept", c.group, c.plural, c.name); err != nil {
			t.Errorf("%s %s in another namespace: %v", c.plural, c.name, err)
		}
	}
}

// TestDeleteEmptyNamespace: an empty namespace goes at once, and a
// namespace of the same name can be made again.
func TestDeleteEmptyNamespace(t *testing.T) {
	e := newEnv(t)
	e.start(t, true)
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("brief"))
	if _, err := e.store.Delete(context.Background(), engine.Ref{Version: e.rv("", "namespaces"), Namespace: "", Name: "brief"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace goes", func() bool {
		_, err := e.get("", "", "namespaces", "brief")
		return apierrors.IsNotFound(err)
	})
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("brief"))
	e.mustCreate(t, "brief", "tools.example.com", "hammers", hammer("h"))
}
