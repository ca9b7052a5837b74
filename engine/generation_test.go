package engine_test

import (
	"testing"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// TestNoGenerationOnBuiltinKinds: the built-in kinds kube keeps no
// metadata.generation for (x-specd-resource generation: false) have none
// after a create that sends one, nor after a change; the events of
// events.k8s.io, stored with the core ones, neither.
func TestNoGenerationOnBuiltinKinds(t *testing.T) {
	e := newSMPEnv(t, etcdstorage.New(testClient))
	events, cms := e.rv(t, "", "events"), e.rv(t, "", "configmaps")
	created := mustCreate(t, e.store, events, "default", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","generation":7},
		"involvedObject":{"kind":"ConfigMap","name":"c","namespace":"default"},"reason":"Made","message":"one"}`)
	wantJSON(t, created, "metadata.generation", "<none>")
	patched, err := e.smp(events, "e", `{"message":"two","metadata":{"generation":3}}`)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, patched.Object, "message", `"two"`)
	wantJSON(t, patched.Object, "metadata.generation", "<none>")
	wantJSON(t, mustCreate(t, e.store, cms, "default", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`),
		"metadata.generation", "<none>")
	newEvents := e.reg.Lookup("events.k8s.io", "v1", "events")
	wantJSON(t, mustCreate(t, e.store, newEvents, "default", `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"f"},
		"eventTime":"2026-11-29T10:00:00.000000Z","reportingController":"x/y","reportingInstance":"i","action":"Make","reason":"Made",
		"regarding":{"kind":"ConfigMap","name":"c","namespace":"default"},"type":"Normal"}`), "metadata.generation", "<none>")
}
