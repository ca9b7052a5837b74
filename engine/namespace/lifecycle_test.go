package namespace_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/schemas"
)

// statusJSON is the Status a client would read for err.
func statusJSON(t *testing.T, err error) string {
	t.Helper()
	var se apierrors.APIStatus
	if !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		t.Fatalf("error %v is no 404 or 403", err)
	}
	se = err.(apierrors.APIStatus)
	st := se.Status()
	st.Kind, st.APIVersion = "Status", "v1"
	b, jerr := json.Marshal(st)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return string(b)
}

// TestCreateInMissingNamespace: a create in a namespace that does not
// exist is kube's 404 naming the namespace (as kube-apiserver answers,
// with the core group left out), for a declared and a built-in resource,
// before the body is validated; a create in an existing one, even right
// after the namespace's create, succeeds.
func TestCreateInMissingNamespace(t *testing.T) {
	e := newEnv(t)
	e.start(t, false)
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"namespaces"},"code":404}`
	for _, c := range []struct{ group, plural, body string }{
		{"tools.example.com", "hammers", hammer("h")},
		{"", "configmaps", configMap("c")},
		{"tools.example.com", "hammers", `{"apiVersion":"tools.example.com/v1","kind":"Hammer","metadata":{"name":"bad"},"spec":{"weight":"heavy"}}`},
	} {
		_, err := e.create("nope", c.group, c.plural, c.body)
		if got := statusJSON(t, err); got != want {
			t.Errorf("create %s in a missing namespace:\n got %s\nwant %s", c.plural, got, want)
		}
	}
	for i := range 20 {
		name := "fresh" + string(rune('a'+i))
		e.mustCreate(t, "", "", "namespaces", namespaceJSON(name))
		e.mustCreate(t, name, "tools.example.com", "hammers", hammer("h")) // the cache may not know it yet
	}
	e.mustCreate(t, "default", "", "configmaps", configMap("c"))
}

// TestCreateInTerminatingNamespace: once a namespace is marked for
// deletion, creates in it are kube's 403 with the NamespaceTerminating
// cause, while updates of what it holds go on.
func TestCreateInTerminatingNamespace(t *testing.T) {
	e := newEnv(t)
	e.start(t, false) // no controller: the namespace stays Terminating
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("going"))
	e.mustCreate(t, "going", "tools.example.com", "hammers", hammer("old"))
	del, err := e.store.Delete(context.Background(), engine.Ref{Version: e.rv("", "namespaces"), Namespace: "", Name: "going"}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(del.Object, "status.phase").Str != "Terminating" || !gjson.GetBytes(del.Object, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("delete answered %s, want the namespace Terminating", del.Object)
	}
	_, err = e.create("going", "tools.example.com", "hammers", hammer("new"))
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"hammers.tools.example.com \"new\" is forbidden: unable to create new content in namespace going because it is being terminated","reason":"Forbidden","details":{"name":"new","group":"tools.example.com","kind":"hammers","causes":[{"reason":"NamespaceTerminating","message":"namespace going is being terminated","field":"metadata.namespace"}]},"code":403}`
	if got := statusJSON(t, err); got != want {
		t.Errorf("create in a Terminating namespace:\n got %s\nwant %s", got, want)
	}
	patch := []byte(`{"spec":{"weight":4}}`)
	if _, err := e.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: e.rv("tools.example.com", "hammers"), Namespace: "going", Name: "old"}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{}}); err != nil {
		t.Fatalf("update in a Terminating namespace: %v", err)
	}
	// The cache learns it from the watch: still refused.
	eventually(t, "the cache sees Terminating", func() bool {
		_, err := e.create("going", "tools.example.com", "hammers", hammer("new"))
		return apierrors.IsForbidden(err)
	})
}

// TestSystemNamespacesStay: default, kube-system and kube-public may not
// be deleted.
func TestSystemNamespacesStay(t *testing.T) {
	e := newEnv(t)
	e.start(t, false)
	for _, name := range []string{"default", "kube-system", "kube-public"} {
		_, err := e.store.Delete(context.Background(), engine.Ref{Version: e.rv("", "namespaces"), Namespace: "", Name: name}, engine.DeleteOptions{})
		want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"` + name +
			`\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"` + name + `","kind":"namespaces"},"code":403}`
		if got := statusJSON(t, err); got != want {
			t.Errorf("delete %s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// TestCheckWithoutNamespaces: with the Namespace resource switched off,
// no create is refused for its namespace; with it, before the cache has
// any namespace, a namespace that is not stored is a 404 read from the
// Store the check is given.
func TestCheckWithoutNamespaces(t *testing.T) {
	e := newEnv(t)
	ref := engine.Ref{Version: e.rv("tools.example.com", "hammers"), Namespace: "any", Name: "h"}
	if err := e.life.CheckNamespace(context.Background(), e.store, ref); !apierrors.IsNotFound(err) {
		t.Fatalf("check before the cache: %v, want 404", err)
	}
	off := namespace.New(namespace.Config{Registry: func() *schemas.Registry { return schemas.NewRegistry(nil) }})
	if err := off.CheckNamespace(context.Background(), e.store, ref); err != nil {
		t.Fatalf("check without namespaces: %v", err)
	}
}

// TestAwaitDeleting: AwaitDeleting waits while no namespace is being
// deleted, and returns once one is: on the replica that marked it, and on
// another that learns it from its watch.
func TestAwaitDeleting(t *testing.T) {
	e := newEnv(t)
	e.start(t, false)
	other := namespace.New(namespace.Config{Registry: e.registry, Logger: quiet()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() { other.Run(ctx, e.store); close(done) }()
	eventually(t, "the other replica's namespaces cached", other.Synced)
	e.mustCreate(t, "", "", "namespaces", namespaceJSON("a"))

	short, stop := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer stop()
	if e.life.AwaitDeleting(short); short.Err() == nil {
		t.Fatal("AwaitDeleting returned while no namespace is being deleted")
	}
	if _, err := e.store.Delete(context.Background(), engine.Ref{Version: e.rv("", "namespaces"), Namespace: "", Name: "a"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]*namespace.Lifecycle{"marking": e.life, "watching": other} {
		wait, stop := context.WithTimeout(context.Background(), time.Minute)
		l.AwaitDeleting(wait)
		if wait.Err() != nil {
			t.Errorf("the %s replica: AwaitDeleting did not return after a delete", name)
		}
		stop()
	}
}
