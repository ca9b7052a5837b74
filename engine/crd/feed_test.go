package crd

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// TestApplyKeepsNotTheEvent: once the Feed has read a CRD's event, the
// API holds what it decoded and the declarations it parsed, not the
// event's bytes. The watch cache shares those bytes with its window of
// recent events; kept here too, every CRD would hold its whole encoded
// object (managed fields, status) for ever, out of the bounded window.
func TestApplyKeepsNotTheEvent(t *testing.T) {
	const crd = `{"metadata":{"name":"widgets.example.com","labels":{"big":"%s"}},` +
		`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]},` +
		`"status":{"acceptedNames":{"plural":"widgets","kind":"Widget"},"conditions":[{"type":"Established","status":"True"}]}}`
	data := []byte(fmt.Sprintf(crd, strings.Repeat("x", 1<<20)))
	freed := make(chan struct{})
	runtime.AddCleanup(&data[0], func(c chan struct{}) { close(c) }, freed)
	a := New(Config{Registry: func() *schemas.Registry { return nil }})
	a.Apply(engine.WatchEvent{Type: storage.EventAdded, Object: data})
	if got := a.declared(); len(got) != 1 {
		t.Fatalf("served CRDs: got %d, want 1", len(got))
	}
	data = nil
	if !collected(freed) {
		t.Fatal("the event's bytes are still reachable after Apply")
	}
	if a.get("widgets.example.com") == nil {
		t.Fatal("the CRD is gone")
	}
}

// collected runs collections until freed is closed by a cleanup, at most
// 50 of them.
func collected(freed chan struct{}) bool {
	for range 50 {
		runtime.GC()
		select {
		case <-freed:
			return true
		case <-time.After(10 * time.Millisecond): // cleanups run on their own goroutine
		}
	}
	return false
}
