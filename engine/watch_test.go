package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

// colourConverter converts widgets between v1 (spec.color, the storage
// version) and v2 (spec.colour).
type colourConverter struct{}

func (colourConverter) Convert(obj []byte, to string) ([]byte, error) {
	from, to2 := "spec.color", "spec.colour"
	if strings.HasSuffix(to, "/v1") {
		from, to2 = to2, from
	}
	out, err := sjson.SetBytes(obj, "apiVersion", to)
	if err != nil {
		return nil, err
	}
	if v := gjson.GetBytes(out, from); v.Exists() {
		if out, err = sjson.SetBytes(out, to2, v.Value()); err != nil {
			return nil, err
		}
		if out, err = sjson.DeleteBytes(out, from); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// watchStore is a Store with a watch cache, and the widget resource in v1
// (storage) and v2.
func watchStore(t *testing.T) (*engine.Store, *schemas.ResourceVersion, *schemas.ResourceVersion) {
	t.Helper()
	st := etcdstorage.New(testClient)
	caches := watchcache.New(st, watchcache.Config{})
	t.Cleanup(caches.Close)
	prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
	s := engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return testNow },
		Cache: caches, Converter: colourConverter{}})
	v1 := widgets(t)
	v2 := &schemas.ResourceVersion{Resource: v1.Resource, Version: "v2", StatusSubresource: true, Schema: v1.Schema}
	v1.Resource.Versions = append(v1.Resource.Versions, v2)
	return s, v1, v2
}

func widgetWith(name, color string, labels string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q,"labels":{%s}},"spec":{"size":1,"color":%q}}`,
		name, labels, color)
}

// events reads n events as "TYPE name key=value" where value is the
// watched field.
func events(t *testing.T, w *engine.Watch, n int, field string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	for range n {
		ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", out, err)
		}
		obj := gjson.ParseBytes(ev.Object)
		out = append(out, fmt.Sprintf("%s %s %s=%s", ev.Type, obj.Get("metadata.name").Str, field, obj.Get(field).String()))
	}
	return out
}

func TestStoreWatch(t *testing.T) {
	tests := map[string]struct {
		version string // v1 or v2
		label   string // labelSelector
		field   string // fieldSelector
		initial bool   // resourceVersion "0": objects first
		field2  string // the field to report
		// allNamespaces watches every namespace instead of default.
		allNamespaces bool
		want          []string
		wantInit      []string
	}{
		"storage version": {
			version: "v1", field2: "spec.color",
			want: []string{"ADDED b spec.color=red", "MODIFIED a spec.color=green", "DELETED b spec.color=red"},
		},
		"converted to v2": {
			version: "v2", field2: "spec.colour",
			want: []string{"ADDED b spec.colour=red", "MODIFIED a spec.colour=green", "DELETED b spec.colour=red"},
		},
		"label selector: leaving is DELETED, entering ADDED": {
			version: "v1", label: "tier=gold", field2: "spec.color",
			// a leaves gold (DELETED, its last gold state), b is gold.
			want: []string{"ADDED b spec.color=red", "DELETED a spec.color=blue", "DELETED b spec.color=red"},
		},
		"one name": {
			version: "v2", field: "metadata.name=a", field2: "spec.colour",
			want: []string{"MODIFIED a spec.colour=green"},
		},
		"one name in every namespace": {
			version: "v1", field: "metadata.name=c", field2: "spec.color", allNamespaces: true,
			want: []string{"ADDED c spec.color=red"},
		},
		"initial objects from the cache": {
			version: "v2", initial: true, field2: "spec.colour",
			wantInit: []string{"ADDED a spec.colour=blue"},
			want:     []string{"ADDED b spec.colour=red", "MODIFIED a spec.colour=green"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, v1, v2 := watchStore(t)
			rv := v1
			if tc.version == "v2" {
				rv = v2
			}
			created := mustCreate(t, s, v1, "default", widgetWith("a", "blue", `"tier":"gold"`))
			req := engine.WatchRequest{ResourceVersion: gjson.GetBytes(created, "metadata.resourceVersion").Str}
			if tc.initial {
				req.ResourceVersion = "0"
			}
			var err error
			if req.Selector, err = engine.ParseSelector(rv, tc.label, tc.field); err != nil {
				t.Fatal(err)
			}
			ns := "default"
			if tc.allNamespaces {
				ns = ""
			}
			w, err := s.Watch(ctx, engine.Ref{Version: rv, Namespace: ns}, req)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if got := events(t, w, len(tc.wantInit), tc.field2); !slices.Equal(got, tc.wantInit) {
				t.Errorf("initial events %v, want %v", got, tc.wantInit)
			}
			mustCreate(t, s, v1, "default", widgetWith("b", "red", `"tier":"gold"`))
			mustCreate(t, s, v1, "other", widgetWith("c", "red", `"tier":"gold"`))
			cur, err := s.Get(ctx, engine.Ref{Version: v1, Namespace: "default", Name: "a"})
			if err != nil {
				t.Fatal(err)
			}
			cur, _ = sjson.SetBytes(cur, "spec.color", "green")
			cur, _ = sjson.SetBytes(cur, "metadata.labels.tier", "silver")
			if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: v1, Namespace: "default", Name: "a"}, Body: cur, Options: engine.WriteOptions{}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Delete(ctx, engine.Ref{Version: v1, Namespace: "default", Name: "b"}, engine.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := events(t, w, len(tc.want), tc.field2); !slices.Equal(got, tc.want) {
				t.Errorf("events %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStoreWatchExpired: a resourceVersion before the cache's window is
// 410 Expired, worded as kube-apiserver words it.
func TestStoreWatchExpired(t *testing.T) {
	st := etcdstorage.New(testClient)
	caches := watchcache.New(st, watchcache.Config{Window: 2})
	t.Cleanup(caches.Close)
	s := engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, Cache: caches})
	rv := widgets(t)
	ctx := context.Background()
	if _, err := s.List(ctx, engine.Ref{Version: rv, Namespace: ""}, engine.ListRequest{ResourceVersion: "0"}); err != nil {
		t.Fatal(err)
	}
	first := gjson.GetBytes(mustCreate(t, s, rv, "default", widgetWith("a", "red", "")), "metadata.resourceVersion").Str
	for _, n := range []string{"b", "c", "d"} {
		mustCreate(t, s, rv, "default", widgetWith(n, "red", ""))
	}
	time.Sleep(200 * time.Millisecond) // the cache has seen the writes
	_, err := s.Watch(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: first})
	if !apierrors.IsResourceExpired(err) || !strings.HasPrefix(err.Error(), "too old resource version: "+first+" (") {
		t.Fatalf("watch from %s: %v, want 410 Expired too old resource version", first, err)
	}
}

// TestWatchReadyNeverWaits: Ready hands over a change that is there and
// never waits for one, also when the changes that are there are all
// filtered out (what a stream needs to flush before it waits).
func TestWatchReadyNeverWaits(t *testing.T) {
	ctx := context.Background()
	s, v1, _ := watchStore(t)
	created := mustCreate(t, s, v1, "default", widgetWith("a", "blue", `"tier":"gold"`))
	req := engine.WatchRequest{ResourceVersion: gjson.GetBytes(created, "metadata.resourceVersion").Str}
	var err error
	if req.Selector, err = engine.ParseSelector(v1, "tier=gold", ""); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, engine.Ref{Version: v1, Namespace: "default"}, req)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustCreate(t, s, v1, "default", widgetWith("b", "red", `"tier":"silver"`))
	mustCreate(t, s, v1, "default", widgetWith("c", "red", `"tier":"gold"`))
	deadline := time.Now().Add(10 * time.Second)
	for {
		ev, ok, err := w.Ready(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if name := gjson.GetBytes(ev.Object, "metadata.name").Str; name != "c" {
				t.Fatalf("ready: %s %s, want ADDED c", ev.Type, name)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("c was not ready within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// b (filtered out) and c are consumed, d is filtered out: nothing
	// is ready, and Ready says so instead of waiting for a change that
	// never comes (waiting would end with the context's error).
	mustCreate(t, s, v1, "default", widgetWith("d", "red", `"tier":"silver"`))
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if ev, ok, err := w.Ready(wctx); ok || err != nil {
		t.Fatalf("with only a filtered change: %s %s ready, err %v; want not ready", ev.Type, ev.Object, err)
	}
}
