package engine_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

func TestGet(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	created := mustCreate(t, s, rv, "default", widget("w1", 3))
	got, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(created) {
		t.Fatalf("Get = %s\nwant %s", got, created)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "other", Name: "w1"}); !apierrors.IsNotFound(err) {
		t.Fatalf("Get in another namespace: %v", err)
	}
}

func TestGetNotFoundMatchesKube(t *testing.T) {
	s, _ := newStore(t)
	_, err := s.Get(context.Background(), engine.Ref{Version: widgets(t), Namespace: "default", Name: "nope"})
	sameJSON(t, statusOf(t, err), loadExchange(t, "22").Response.Body)
}

func TestList(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	var want []string
	for _, ns := range []string{"a", "ab", "b"} {
		for _, n := range []string{"w2", "w1"} {
			obj := mustCreate(t, s, rv, ns, widget(n, 1))
			want = append(want, ns+"/"+n+"@"+rvOf(obj))
		}
	}
	tests := map[string]struct {
		ns   string
		want []string
	}{
		"namespace a":    {ns: "a", want: []string{"a/w1", "a/w2"}},
		"namespace ab":   {ns: "ab", want: []string{"ab/w1", "ab/w2"}},
		"all namespaces": {ns: "", want: []string{"a/w1", "a/w2", "ab/w1", "ab/w2", "b/w1", "b/w2"}},
		"empty":          {ns: "none", want: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := s.List(ctx, engine.Ref{Version: rv, Namespace: tc.ns}, engine.ListRequest{})
			if err != nil {
				t.Fatal(err)
			}
			l := gjson.ParseBytes(b)
			if l.Get("kind").String() != "WidgetList" || l.Get("apiVersion").String() != "shop.example.com/v1" ||
				!l.Get("metadata.continue").Exists() || l.Get("metadata.continue").String() != "" ||
				l.Get("metadata.remainingItemCount").Exists() || l.Get("metadata.resourceVersion").Int() <= 0 ||
				!l.Get("items").IsArray() {
				t.Fatalf("list shape: %s", b)
			}
			var got []string
			for _, it := range l.Get("items").Array() {
				got = append(got, it.Get("metadata.namespace").String()+"/"+it.Get("metadata.name").String())
				id := got[len(got)-1] + "@" + it.Get("metadata.resourceVersion").String()
				if !contains(want, id) {
					t.Fatalf("item %s has the wrong resourceVersion", id)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("items %v, want %v", got, tc.want)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestListClusterScoped(t *testing.T) {
	s, _ := newStore(t)
	rv := warehouses(t)
	mustCreate(t, s, rv, "", `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"north"}}`)
	b, err := s.List(context.Background(), engine.Ref{Version: rv, Namespace: ""}, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := gjson.GetBytes(b, "items.#").Int(); n != 1 || gjson.GetBytes(b, "kind").String() != "WarehouseList" {
		t.Fatalf("list: %s", b)
	}
}

// TestListPagingIsConsistent pages through a list while another client
// writes: every page reads the first page's snapshot.
func TestListPagingIsConsistent(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	for i := range 10 {
		mustCreate(t, s, rv, "default", widget(fmt.Sprintf("w%02d", i), 1))
	}
	first, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	l := gjson.ParseBytes(first)
	if l.Get("metadata.remainingItemCount").Int() != 6 || l.Get("items.#").Int() != 4 {
		t.Fatalf("first page: %s", first)
	}
	snapshot := l.Get("metadata.resourceVersion").String()

	// Concurrent writes: a new object, an update and a delete.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mustCreate(t, s, rv, "default", widget("w05a", 1))
		if _, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w08"}, engine.DeleteOptions{}); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()

	names := itemNames(l)
	token := l.Get("metadata.continue").String()
	for token != "" {
		page, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 4, Continue: token})
		if err != nil {
			t.Fatal(err)
		}
		p := gjson.ParseBytes(page)
		if got := p.Get("metadata.resourceVersion").String(); got != snapshot {
			t.Fatalf("page at resourceVersion %s, want the snapshot %s", got, snapshot)
		}
		names = append(names, itemNames(p)...)
		token = p.Get("metadata.continue").String()
		if token == "" && p.Get("metadata.remainingItemCount").Exists() {
			t.Fatalf("last page has remainingItemCount: %s", page)
		}
	}
	want := "w00,w01,w02,w03,w04,w05,w06,w07,w08,w09"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("paged items %s, want %s", got, want)
	}
}

func itemNames(l gjson.Result) []string {
	var names []string
	for _, it := range l.Get("items").Array() {
		names = append(names, it.Get("metadata.name").String())
	}
	return names
}

func TestListContinueErrors(t *testing.T) {
	s, _ := newStore(t)
	rv := widgets(t)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := map[string]string{
		"not base64":     "!!!",
		"not JSON":       enc("nope"),
		"other version":  enc(`{"v":"x","rv":5,"start":"/a\u0000"}`),
		"no revision":    enc(`{"v":"meta.k8s.io/v1","start":"/a\u0000"}`),
		"no start":       enc(`{"v":"meta.k8s.io/v1","rv":5}`),
		"path traversal": enc(`{"v":"meta.k8s.io/v1","rv":5,"start":"/../x"}`),
		"double slash":   enc(`{"v":"meta.k8s.io/v1","rv":5,"start":"//x"}`),
		"negative rv":    enc(`{"v":"meta.k8s.io/v1","rv":-5,"start":"/a"}`),
	}
	for name, token := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.List(context.Background(), engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Continue: token})
			if !apierrors.IsBadRequest(err) || !strings.HasPrefix(err.Error(), "invalid continue token: continue key is not valid") {
				t.Fatalf("error %v, want 400 invalid continue token", err)
			}
		})
	}
}

func TestListCompactedContinue(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	for i := range 3 {
		mustCreate(t, s, rv, "default", widget(fmt.Sprintf("c%d", i), 1))
	}
	first, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	obj := mustCreate(t, s, rv, "default", widget("later", 1))
	rev := gjson.GetBytes(obj, "metadata.resourceVersion").Int()
	if _, err := testClient.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	_, err = s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 1, Continue: gjson.GetBytes(first, "metadata.continue").String()})
	var se *apierrors.StatusError
	if !errorsAs(err, &se) || se.ErrStatus.Code != 410 || se.ErrStatus.Reason != "Expired" {
		t.Fatalf("error %v, want 410 Expired", err)
	}
	if !strings.HasPrefix(se.ErrStatus.Message, "The provided continue parameter is too old to display a consistent list result.") {
		t.Fatalf("message %q", se.ErrStatus.Message)
	}
	// The token in the answer continues, inconsistently, at the latest revision.
	next, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Continue: se.ErrStatus.ListMeta.Continue})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(itemNames(gjson.ParseBytes(next)), ","); got != "c1,c2,later" {
		t.Fatalf("items after the expired token: %s", got)
	}
}
