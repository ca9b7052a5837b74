package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

// TestInformerProtobuf: a typed informer on Roles, in protobuf, syncs
// (client-go's watch-list: initial events, then the initial-events-end
// bookmark) and sees adds, updates and deletes.
func TestInformerProtobuf(t *testing.T) {
	cs, rec := protobufClientset(t, startSpecdWithBuiltins(t))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a hung informer fails, not hangs
	defer cancel()
	roles := cs.RbacV1().Roles("default")
	if _, err := roles.Create(ctx, readerRole("before", "get"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	events := make(chan string, 16)
	inf := factory.Rbac().V1().Roles().Informer()
	if _, err := inf.AddEventHandler(recordRoleEvents(events)); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() {
		cancel() // stops the informer, for which Shutdown waits
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	next := func(want string) {
		t.Helper()
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("event %q, want %q", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("no event, want %q", want)
		}
	}
	next("add before [get]")
	created, err := roles.Create(ctx, readerRole("after", "get"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next("add after [get]")
	created.Rules[0].Verbs = []string{"get", "watch"}
	if _, err := roles.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next("update after [get watch]")
	if err := roles.Delete(ctx, "after", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	next("delete after [get watch]")
	rec.onlyProtobuf(t)
}

// recordRoleEvents sends "add|update|delete NAME [VERBS]" per event.
func recordRoleEvents(events chan<- string) cache.ResourceEventHandlerFuncs {
	say := func(op string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		r := obj.(*rbacv1.Role)
		events <- op + " " + r.Name + " " + fmtVerbs(r)
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { say("add", obj) },
		UpdateFunc: func(_, obj any) { say("update", obj) },
		DeleteFunc: func(obj any) { say("delete", obj) },
	}
}

func fmtVerbs(r *rbacv1.Role) string {
	if len(r.Rules) == 0 {
		return "[]"
	}
	out := "["
	for i, v := range r.Rules[0].Verbs {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

// TestProtobufWatchFrames reads a protobuf watch with client-go's own
// scheme: length-delimited frames of a bare WatchEvent whose object is an
// enveloped Role, and the initial-events-end bookmark with its
// annotation.
func TestProtobufWatchFrames(t *testing.T) {
	url := startSpecdWithBuiltins(t)
	cs, _ := protobufClientset(t, url)
	if _, err := cs.RbacV1().Roles("default").Create(t.Context(), readerRole("before", "get"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"+
		"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", contentTypeProtobuf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/vnd.kubernetes.protobuf;stream=watch" {
		t.Fatalf("answer %d %q", resp.StatusCode, ct)
	}
	events := streaming.NewDecoder(protobuf.LengthDelimitedFramer.NewFrameReader(resp.Body),
		protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme))
	added := nextRoleEvent(t, events)
	if added.Type != "ADDED" || added.role.Name != "before" || added.role.Rules[0].Verbs[0] != "get" {
		t.Errorf("first event %s %+v", added.Type, added.role)
	}
	end := nextRoleEvent(t, events)
	if end.Type != "BOOKMARK" || end.role.Annotations["k8s.io/initial-events-end"] != "true" || end.role.ResourceVersion == "" {
		t.Errorf("second event %s %+v, want the initial-events-end bookmark", end.Type, end.role.ObjectMeta)
	}
}

type roleEvent struct {
	Type string
	role *rbacv1.Role
}

func nextRoleEvent(t *testing.T, events streaming.Decoder) roleEvent {
	t.Helper()
	var ev metav1.WatchEvent
	if _, _, err := events.Decode(nil, &ev); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(ev.Object.Raw, nil, nil)
	if err != nil {
		t.Fatalf("decoding the %s event's object: %v", ev.Type, err)
	}
	role, ok := obj.(*rbacv1.Role)
	if !ok {
		t.Fatalf("%s event of a %T", ev.Type, obj)
	}
	return roleEvent{Type: ev.Type, role: role}
}

// TestProtobufWatchError: an error in a protobuf watch is an ERROR frame
// holding a protobuf Status, as client-go reads a 410 to relist.
func TestProtobufWatchError(t *testing.T) {
	w := httptest.NewRecorder()
	sw := startStream(w, http.NewResponseController(w), true, 0)
	sw.status(apierrors.NewResourceExpired("too old resource version: 1 (5)"))
	if ct := w.Header().Get("Content-Type"); ct != contentTypeProtobufWatch {
		t.Fatalf("Content-Type %q", ct)
	}
	events := streaming.NewDecoder(protobuf.LengthDelimitedFramer.NewFrameReader(io.NopCloser(w.Body)),
		protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme))
	var ev metav1.WatchEvent
	if _, _, err := events.Decode(nil, &ev); err != nil {
		t.Fatalf("reading the frame: %v", err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(ev.Object.Raw, nil, nil)
	st, ok := obj.(*metav1.Status)
	if err != nil || !ok || ev.Type != "ERROR" || st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired {
		t.Errorf("event %s %#v %v, want ERROR with a 410 Expired Status", ev.Type, obj, err)
	}
}
