package namespace_test

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

// fields are a Namespace's spec.finalizers, status.phase and name label.
func fields(obj []byte) string {
	return gjson.GetBytes(obj, `[spec.finalizers,status.phase,metadata.labels.kubernetes\.io/metadata\.name]`).Raw
}

// TestNamespaceWrites: kube's namespace strategy on every write path:
// create adds the kubernetes finalizer after the client's and makes it
// Active whatever status says; the label follows the name, even a
// generated one; an update or a status write keeps spec.finalizers; the
// finalize subresource changes them and nothing of status.
func TestNamespaceWrites(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rv := e.rv("", "namespaces")
	obj := e.mustCreate(t, "", "", "namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a","labels":{"kubernetes.io/metadata.name":"b"}},
		"spec":{"finalizers":["example.com/x"]},"status":{"phase":"Terminating"}}`)
	if got, want := fields(obj), `[["example.com/x","kubernetes"],"Active","a"]`; got != want {
		t.Fatalf("created %s, want %s", got, want)
	}
	gen := e.mustCreate(t, "", "", "namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"generateName":"gen-"}}`)
	if name := gjson.GetBytes(gen, "metadata.name").Str; gjson.GetBytes(gen, `metadata.labels.kubernetes\.io/metadata\.name`).Str != name {
		t.Errorf("generated namespace %s: label does not name it", gen)
	}
	body, _ := sjson.SetBytes(obj, "spec.finalizers", []string{})
	body, _ = sjson.SetBytes(body, `metadata.labels.kubernetes\.io/metadata\.name`, "other")
	res, err := e.store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a"}, Body: body, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fields(res.Object), `[["example.com/x","kubernetes"],"Active","a"]`; got != want {
		t.Errorf("updated %s, want %s", got, want)
	}
	status, _ := sjson.SetBytes(res.Object, "spec.finalizers", []string{})
	status, _ = sjson.SetBytes(status, "status.phase", "Active")
	if res, err = e.store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a", Subresource: "status"}, Body: status, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if got, want := fields(res.Object), `[["example.com/x","kubernetes"],"Active","a"]`; got != want {
		t.Errorf("status written %s, want %s", got, want)
	}
	fin, _ := sjson.SetBytes(res.Object, "spec.finalizers", []string{"kubernetes"})
	fin, _ = sjson.SetBytes(fin, "status.phase", "Terminating")
	if res, err = e.store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a", Subresource: "finalize"}, Body: fin, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if got, want := fields(res.Object), `[["kubernetes"],"Active","a"]`; got != want {
		t.Errorf("finalized %s, want %s", got, want)
	}
}

// TestFinalizeDeletesTerminating: a Terminating namespace whose
// spec.finalizers a finalize empties is deleted; a second DELETE before
// that answers the namespace as it is.
func TestFinalizeDeletesTerminating(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rv := e.rv("", "namespaces")
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("a"))
	for range 2 {
		res, err := e.store.Delete(ctx, engine.Ref{Version: rv, Namespace: "", Name: "a"}, engine.DeleteOptions{})
		if err != nil || gjson.GetBytes(res.Object, "status.phase").Str != "Terminating" {
			t.Fatalf("delete: %s, %v", res.Object, err)
		}
	}
	obj, err := e.get("", "", "namespaces", "a")
	if err != nil {
		t.Fatal(err)
	}
	fin, _ := sjson.SetBytes(obj, "spec.finalizers", []string{})
	if _, err := e.store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a", Subresource: "finalize"}, Body: fin, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.get("", "", "namespaces", "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("finalized Terminating namespace: %v, want it deleted", err)
	}
}
