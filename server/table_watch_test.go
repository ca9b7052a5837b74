package server

import (
	"bufio"
	"net/http"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine/watchcache"
)

// TestTableWatch: a watch in Table form streams a Table for every event,
// bookmarks included, with the column definitions in the first one only,
// as kube-apiserver does (kube's WatchList e2e test compares the events
// so, and reads the initial events' bookmark as a Table).
func TestTableWatch(t *testing.T) {
	e := startWatchServer(t, watchcache.Config{})
	e.create(t, "a", "red")
	e.create(t, "b", "blue")
	req, err := http.NewRequestWithContext(testCtx(t), "GET", e.URL+watchWidgets+
		"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for i, want := range []string{"ADDED a", "ADDED b", "BOOKMARK "} {
		if !lines.Scan() {
			t.Fatalf("event %d: the stream ended: %v", i, lines.Err())
		}
		ev := gjson.Parse(lines.Text())
		obj := ev.Get("object")
		if got := ev.Get("type").Str + " " + obj.Get("rows.0.cells.0").Str; got != want || obj.Get("kind").Str != "Table" {
			t.Fatalf("event %d: %s, want a Table of %q", i, lines.Text(), want)
		}
		if defs := obj.Get("columnDefinitions"); (i == 0) != defs.IsArray() {
			t.Errorf("event %d: columnDefinitions %s", i, defs.Raw)
		}
	}
}
