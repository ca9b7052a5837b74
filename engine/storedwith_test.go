package engine_test

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

// notesFiles: notes of news.example.com are stored with the notices of
// shop.example.com, news' note being the shop's message.
var notesFiles = fstest.MapFS{
	"shop.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: Shop, version: v1}
x-specd: {group: shop.example.com}
components:
  schemas:
    Note:
      type: object
      x-specd-resource: {plural: notices}
      properties:
        message: {type: string}
        priority: {type: integer}
`)},
	"news.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: News, version: v1}
x-specd: {group: news.example.com}
components:
  schemas:
    Note:
      type: object
      x-specd-resource:
        storageResource: notices.shop.example.com
        conversion:
          rules:
            - rename: {from: note, to: message}
      properties:
        note: {type: string}
`)},
}

func sharedNotesStore(t *testing.T, ttl time.Duration) (s *engine.Store, shop, news *schemas.ResourceVersion) {
	t.Helper()
	reg, err := schemas.LoadFS(notesFiles)
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	st := etcdstorage.New(testClient)
	caches := watchcache.New(st, watchcache.Config{})
	t.Cleanup(caches.Close)
	s = engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, Now: func() time.Time { return testNow },
		Cache: caches, Converter: set, TTL: map[string]time.Duration{"notices.shop.example.com": ttl}})
	return s, reg.Lookup("shop.example.com", "v1", "notices"), reg.Lookup("news.example.com", "v1", "notes")
}

// TestStoredWith: an object written through either resource is read,
// listed, watched and updated through the other, each in its own
// apiVersion; the shop's field that news lacks survives a news update.
func TestStoredWith(t *testing.T) {
	s, shop, news := sharedNotesStore(t, 0)
	ctx := context.Background()
	created := mustCreate(t, s, shop, "default", `{"apiVersion":"shop.example.com/v1","kind":"Note","metadata":{"name":"a"},"message":"hi","priority":2}`)
	w, err := s.Watch(ctx, engine.Ref{Version: news, Namespace: "default"}, engine.WatchRequest{ResourceVersion: gjson.GetBytes(created, "metadata.resourceVersion").Str})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	got, err := s.Get(ctx, engine.Ref{Version: news, Namespace: "default", Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if r := gjson.GetManyBytes(got, "apiVersion", "note", "message", "priority"); r[0].Str != "news.example.com/v1" || r[1].Str != "hi" || r[2].Exists() || r[3].Exists() {
		t.Errorf("news get: %s", got)
	}
	got, _ = sjson.SetBytes(got, "note", "hello")
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: news, Namespace: "default", Name: "a"}, Body: got, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, news, "default", `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"b"},"note":"new"}`)
	list, err := s.List(ctx, engine.Ref{Version: shop, Namespace: "default"}, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"apiVersion":"shop.example.com/v1","message":"hello","priority":2},{"apiVersion":"shop.example.com/v1","message":"new"}]`
	if items := gjson.GetBytes(list, `items.#.{apiVersion,message,priority}`).Raw; items != want {
		t.Errorf("shop list: %s, want %s", items, want)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, want := range []string{"MODIFIED a hello", "ADDED b new"} {
		ev, err := w.Next(wctx)
		if err != nil {
			t.Fatal(err)
		}
		r := gjson.GetManyBytes(ev.Object, "apiVersion", "metadata.name", "note")
		if got := fmt.Sprintf("%s %s %s", ev.Type, r[1].Str, r[2].Str); got != want || r[0].Str != "news.example.com/v1" {
			t.Errorf("news watch: %s %s, want %s in news.example.com/v1", r[0].Str, got, want)
		}
	}
}

// TestStoredWithTTL: the TTL of the storage resource covers the objects
// written through the other.
func TestStoredWithTTL(t *testing.T) {
	s, shop, news := sharedNotesStore(t, 2*time.Second)
	ctx := context.Background()
	created := mustCreate(t, s, news, "default", `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"a"},"note":"hi"}`)
	w, err := s.Watch(ctx, engine.Ref{Version: shop, Namespace: "default"}, engine.WatchRequest{ResourceVersion: gjson.GetBytes(created, "metadata.resourceVersion").Str})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ev, err := w.Next(wctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type.String() != "DELETED" || gjson.GetBytes(ev.Object, "message").Str != "hi" {
		t.Errorf("event %s %s, want the note DELETED", ev.Type, ev.Object)
	}
}
