package engine_test

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
)

// TestEventFieldLabels: kube's field labels of Events that are no path of
// the object: core's source (source.component, else reportingComponent)
// and events.k8s.io's reportingController and regarding.*.
func TestEventFieldLabels(t *testing.T) {
	e := newSMPEnv(t, etcdstorage.New(testClient))
	conv, err := converters.NewSet(e.reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Converter = conv
	e.store = engine.NewStore(etcdstorage.New(testClient), e.opts)
	core, events := e.rv(t, "", "events"), e.reg.Lookup("events.k8s.io", "v1", "events")
	mustCreate(t, e.store, core, "default", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"a"},
		"involvedObject":{"kind":"ConfigMap","name":"c","namespace":"default"},"reason":"Made","source":{"component":"ctl"}}`)
	mustCreate(t, e.store, events, "default", `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"b"},
		"eventTime":"2026-11-29T10:00:00.000000Z","reportingController":"ctl","reportingInstance":"i","action":"Make","reason":"Made",
		"regarding":{"kind":"Secret","name":"s","namespace":"default"},"type":"Normal"}`)
	mustCreate(t, e.store, core, "default", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"c"},
		"involvedObject":{"kind":"ConfigMap","name":"c","namespace":"default"},"reason":"Made","source":{"component":"other"},"reportingComponent":"ctl"}`)
	tests := []struct {
		version  string
		selector string
		want     string
	}{
		{"core", "source=ctl", `["a","b"]`},
		{"core", "source=other", `["c"]`},
		{"events.k8s.io", "reportingController=ctl", `["b","c"]`},
		{"events.k8s.io", "regarding.kind=Secret", `["b"]`},
		{"events.k8s.io", "regarding.name=c,reason=Made", `["a","c"]`},
	}
	for _, tc := range tests {
		rv := core
		if tc.version != "core" {
			rv = events
		}
		sel, err := engine.ParseSelector(rv, "", tc.selector)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.version, tc.selector, err)
		}
		list, err := e.store.List(context.Background(), engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Selector: sel})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(list, "items.#.metadata.name").Raw; got != tc.want {
			t.Errorf("%s events with %s: %s, want %s", tc.version, tc.selector, got, tc.want)
		}
	}
	if _, err := engine.ParseSelector(events, "", "source=ctl"); err == nil {
		t.Error("events.k8s.io took the core field label source")
	}
}
