package server

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/engine/watchcache"
)

// kube's metadata clients (the garbage collector's, the namespace
// controller's) read any kind as PartialObjectMetadata, in JSON or
// protobuf; specd answers in those forms, not with the whole object
// (which client-go would also parse, so the forms are checked on the
// wire).
func TestPartialObjectMetadata(t *testing.T) {
	base := startWatchServer(t, watchcache.Config{}).URL
	exchange{method: "POST", path: "/apis/shop.example.com/v1/namespaces/default/widgets", contentType: "application/json", code: 201,
		body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"color":"red"}}`}.run(t, base)
	const path = "/apis/shop.example.com/v1/namespaces/default/widgets"
	tests := map[string]struct {
		path, accept, kind string
	}{
		"get":           {path + "/w", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", "PartialObjectMetadata"},
		"list":          {path, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "PartialObjectMetadataList"},
		"client-go get": {path + "/w", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctype, body := getAccept(t, base+tc.path, tc.accept)
			if tc.kind == "" {
				if ctype != contentTypeProtobuf {
					t.Fatalf("Content-Type %q, want protobuf", ctype)
				}
				obj, err := typedObjectFromProtobuf(body)
				if err != nil {
					t.Fatal(err)
				}
				if p, ok := obj.(*metav1.PartialObjectMetadata); !ok || p.Name != "w" || p.Labels["a"] != "b" {
					t.Fatalf("protobuf answer %#v", obj)
				}
				return
			}
			got := gjson.ParseBytes(body)
			meta := got
			if tc.kind == "PartialObjectMetadataList" {
				meta = got.Get("items.0")
				if got.Get("items.#").Int() != 1 || got.Get("metadata.resourceVersion").Str == "" || meta.Get("kind").Str != "PartialObjectMetadata" {
					t.Fatalf("list %s", body)
				}
			}
			if ctype != contentTypeJSON || got.Get("kind").Str != tc.kind || got.Get("apiVersion").Str != "meta.k8s.io/v1" ||
				meta.Get("metadata.name").Str != "w" || meta.Get("metadata.labels.a").Str != "b" || meta.Get("spec").Exists() {
				t.Fatalf("%s %s", ctype, body)
			}
		})
	}
	t.Run("client-go watch", func(t *testing.T) {
		mc, err := metadata.NewForConfig(&rest.Config{Host: base})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		w, err := mc.Resource(schema.GroupVersionResource{Group: "shop.example.com", Version: "v1", Resource: "widgets"}).
			Namespace("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev := <-w.ResultChan()
		if p, ok := ev.Object.(*metav1.PartialObjectMetadata); !ok || p.Name != "w" {
			t.Fatalf("event %s %#v", ev.Type, ev.Object)
		}
	})
}

func getAccept(t *testing.T, url, accept string) (string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v %s", resp.StatusCode, err, body)
	}
	return resp.Header.Get("Content-Type"), body
}

// typedObjectFromProtobuf decodes kube's protobuf envelope into its Go
// type.
func typedObjectFromProtobuf(body []byte) (any, error) {
	obj, _, err := protobufCodec().Decode(body, nil, nil)
	return obj, err
}
