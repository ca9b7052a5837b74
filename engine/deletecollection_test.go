package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

// fiveWidgets creates widgets a to e in default, a, c and e labelled
// tier=gold.
func fiveWidgets(t *testing.T, s *engine.Store) {
	t.Helper()
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		tier := "gold"
		if i%2 == 1 {
			tier = "iron"
		}
		mustCreate(t, s, widgets(t), "default", fmt.Sprintf(
			`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q,"labels":{"tier":%q}},"spec":{"size":1}}`, name, tier))
	}
}

func remaining(t *testing.T, list []byte) string {
	t.Helper()
	if r := gjson.GetBytes(list, "metadata.remainingItemCount"); r.Exists() {
		return r.String()
	}
	return "-"
}

// TestDeleteCollectionLimit follows kube-apiserver's DeleteCollection: with
// limit, one page of the list is deleted and answered with its continue
// token, and the token deletes the next page of the same snapshot.
func TestDeleteCollectionLimit(t *testing.T) {
	stores := map[string]func(t *testing.T) *engine.Store{
		"storage":     func(t *testing.T) *engine.Store { s, _ := newStore(t); return s },
		"watch cache": func(t *testing.T) *engine.Store { s, _ := consistentStore(t, false); return s },
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) { testDeleteCollectionLimit(t, newStore(t)) })
	}
}

func testDeleteCollectionLimit(t *testing.T, s *engine.Store) {
	ctx := context.Background()
	rv := widgets(t)
	fiveWidgets(t, s)

	dry, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 2}, engine.DeleteOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if names(dry) != "[a b]" || remaining(t, dry) != "3" {
		t.Fatalf("dry run answered %s", dry)
	}
	first, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 2}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	token := gjson.GetBytes(first, "metadata.continue").String()
	if names(first) != "[a b]" || token == "" || remaining(t, first) != "3" {
		t.Fatalf("first page %s", first)
	}
	if left := mustList(t, s, engine.ListRequest{}); names(left) != "[c d e]" {
		t.Fatalf("after the first page: %s", names(left))
	}
	second, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 2, Continue: token}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	last := gjson.GetBytes(second, "metadata.continue").String()
	if names(second) != "[c d]" || last == "" || remaining(t, second) != "1" ||
		rvOf(second) != rvOf(first) {
		t.Fatalf("second page (same snapshot as the first) %s", second)
	}
	// A token without a limit goes on to the end.
	rest, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Continue: last}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names(rest) != "[e]" || gjson.GetBytes(rest, "metadata.continue").String() != "" {
		t.Fatalf("the rest %s", rest)
	}
	if left := mustList(t, s, engine.ListRequest{}); names(left) != "[]" {
		t.Fatalf("left %s", names(left))
	}
}

// TestDeleteCollectionLimitSelector: the limit counts the objects that
// match, as a filtered list page does.
func TestDeleteCollectionLimitSelector(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	fiveWidgets(t, s)
	page, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"},
		engine.ListRequest{Limit: 2, Selector: mustSelector(t, rv, "tier=gold", "")}, engine.DeleteOptions{})

	if err != nil {
		t.Fatal(err)
	}
	if names(page) != "[a c]" || gjson.GetBytes(page, "metadata.continue").String() == "" || remaining(t, page) != "-" {
		t.Fatalf("page %s", page)
	}
	if left := mustList(t, s, engine.ListRequest{}); names(left) != "[b d e]" {
		t.Fatalf("left %s", names(left))
	}
}

// TestDeleteCollectionPages: without a limit every page of one snapshot
// is deleted, and the answer has every item with the list metadata of the
// first page, as kube-apiserver answers.
func TestDeleteCollectionPages(t *testing.T) {
	defer engine.SetDeleteCollectionPage(2)()
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	fiveWidgets(t, s)
	all, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names(all) != "[a b c d e]" || gjson.GetBytes(all, "metadata.continue").String() == "" || remaining(t, all) != "3" {
		t.Fatalf("answer %s", all)
	}
	if left := mustList(t, s, engine.ListRequest{}); names(left) != "[]" {
		t.Fatalf("left %s", names(left))
	}
}

func TestDeleteCollectionBadContinue(t *testing.T) {
	s, _ := newStore(t)
	rv := widgets(t)
	fiveWidgets(t, s)
	_, err := s.DeleteCollection(context.Background(), engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 1, Continue: "nope"}, engine.DeleteOptions{})
	if !apierrors.IsBadRequest(err) {
		t.Fatalf("err %v, want BadRequest", err)
	}
	if left := mustList(t, s, engine.ListRequest{}); names(left) != "[a b c d e]" {
		t.Fatalf("a refused deletecollection deleted: %s", names(left))
	}
}

func mustList(t *testing.T, s *engine.Store, req engine.ListRequest) []byte {
	t.Helper()
	list, err := s.List(context.Background(), engine.Ref{Version: widgets(t), Namespace: "default"}, req)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
