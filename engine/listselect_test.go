package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// TestListSelectorPages checks that a filtered list fills each page with
// limit matching objects, keeps one snapshot across pages and leaves
// remainingItemCount out, as kube-apiserver does.
func TestListSelectorPages(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	rv.SelectableFields = []schemas.SelectableField{{JSONPath: ".spec.color"}}
	for i := range 10 {
		tier := "bronze"
		if i%3 == 0 {
			tier = "gold"
		}
		mustCreate(t, s, rv, "default", fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget",`+
			`"metadata":{"name":"w%d","labels":{"tier":%q}},"spec":{"size":%d}}`, i, tier, i+1))
	}
	sel, err := engine.ParseSelector(rv, "tier=gold", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	req := engine.ListRequest{Limit: 2, Selector: sel}
	pages := 0
	for {
		list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, req)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if gjson.GetBytes(list, "metadata.remainingItemCount").Exists() {
			t.Fatalf("a filtered page has remainingItemCount: %s", list)
		}
		if pages == 1 {
			// A later create is not seen by the next pages.
			mustCreate(t, s, rv, "default", `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w99","labels":{"tier":"gold"}},"spec":{"size":1}}`)
		}
		for _, n := range gjson.GetBytes(list, "items.#.metadata.name").Array() {
			names = append(names, n.String())
		}
		req.Continue = gjson.GetBytes(list, "metadata.continue").String()
		if req.Continue == "" {
			break
		}
	}
	if got, want := fmt.Sprint(names), "[w0 w3 w6 w9]"; got != want {
		t.Fatalf("names %s, want %s", got, want)
	}
	if pages != 2 {
		t.Fatalf("%d pages, want 2", pages)
	}

	tests := map[string]struct {
		labels, fields string
		want           string
	}{
		"field":           {fields: "spec.color=red", want: "[w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w99]"},
		"name":            {fields: "metadata.name=w3", want: "[w3]"},
		"label and field": {labels: "tier!=gold", fields: "metadata.name!=w1", want: "[w2 w4 w5 w7 w8]"},
		"none":            {labels: "tier in (silver)", want: "[]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			sel, err := engine.ParseSelector(rv, tc.labels, tc.fields)
			if err != nil {
				t.Fatal(err)
			}
			list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Selector: sel})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range gjson.GetBytes(list, "items.#.metadata.name").Array() {
				got = append(got, n.String())
			}
			if fmt.Sprint(got) != tc.want {
				t.Fatalf("names %v, want %s", got, tc.want)
			}
		})
	}
}
