package gc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/schemas"
)

// link is one member of an ownership cycle.
type link struct {
	rv   *schemas.ResourceVersion
	name string
}

// cycle creates the objects of links, each owned (with blockOwnerDeletion)
// by the one before it and the first by the last.
func (w *world) cycle(t *testing.T, links ...link) {
	t.Helper()
	objs := make([][]byte, len(links))
	objs[0] = w.create(t, links[0].rv, "default", links[0].name, nil)
	for i := 1; i < len(links); i++ {
		objs[i] = w.create(t, links[i].rv, "default", links[i].name, nil, owner{objs[i-1], true})
	}
	last := objs[len(objs)-1]
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"blockOwnerDeletion":true}]}}`,
		gjson.GetBytes(last, "apiVersion").String(), gjson.GetBytes(last, "kind").String(),
		gjson.GetBytes(last, "metadata.name").String(), gjson.GetBytes(last, "metadata.uid").String())
	if _, err := w.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: links[0].rv, Namespace: "default", Name: links[0].name}, Type: engine.MergePatchType, Patch: []byte(patch), Options: engine.PatchOptions{}}); err != nil {
		t.Fatal(err)
	}
}

func (w *world) allGone(t *testing.T, links ...link) bool {
	t.Helper()
	for _, l := range links {
		if w.exists(t, l.rv, "default", l.name) {
			return false
		}
	}
	return true
}

// TestForegroundCycles: objects that own each other with
// blockOwnerDeletion, one of them deleted in the foreground, all go: the
// collector makes the references of the member whose dependent already
// waits non-blocking, as Kubernetes' collector does.
func TestForegroundCycles(t *testing.T) {
	tests := map[string][]string{
		"a owns b owns a":    {"widget/a", "book/b"},
		"a cycle of three":   {"widget/a", "book/b", "widget/c"},
		"a cycle of five":    {"book/a", "widget/b", "book/c", "widget/d", "book/e"},
		"started in between": {"book/x", "widget/y", "book/z"},
	}
	for name, members := range tests {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			links := w.links(members)
			w.cycle(t, links...)
			start := links[0]
			if name == "started in between" {
				start = links[1]
			}
			w.delete(t, start.rv, "default", start.name, metav1.DeletePropagationForeground)
			collect(t, w.collector())
			if !w.allGone(t, links...) {
				for _, l := range links {
					if w.exists(t, l.rv, "default", l.name) {
						t.Logf("left: %s", w.get(t, l.rv, "default", l.name))
					}
				}
				t.Fatal("the cycle is stuck")
			}
		})
	}
}

func (w *world) links(members []string) []link {
	out := make([]link, len(members))
	for i, m := range members {
		kind, name, _ := strings.Cut(m, "/")
		rv := w.widgets
		if kind == "book" {
			rv = w.books
		}
		out[i] = link{rv: rv, name: name}
	}
	return out
}

// TestForegroundCycleUnblocks checks the write that breaks the cycle: the
// member deleted by the collector loses the blocking of its references
// before it is deleted in the foreground, so its owner goes first.
func TestForegroundCycleUnblocks(t *testing.T) {
	w := newWorld(t)
	links := w.links([]string{"widget/a", "book/b"})
	w.cycle(t, links...)
	w.delete(t, w.widgets, "default", "a", metav1.DeletePropagationForeground)
	c := w.collector()
	if _, err := c.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := w.get(t, w.books, "default", "b")
	if got := gjson.GetBytes(b, "metadata.ownerReferences.0.blockOwnerDeletion").Raw; got != "false" {
		t.Fatalf("b's reference to a is still blocking: %s", b)
	}
	if gjson.GetBytes(b, "metadata.finalizers").String() != `["foregroundDeletion"]` || !gjson.GetBytes(b, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("b is not deleted in the foreground: %s", b)
	}
	if _, err := c.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w.exists(t, w.widgets, "default", "a") || !w.exists(t, w.books, "default", "b") {
		t.Fatal("after the cycle is broken, a goes first and b waits for it")
	}
	collect(t, c)
	if w.exists(t, w.books, "default", "b") {
		t.Fatal("b stays")
	}
}

// TestForegroundCycleRestart: the collector keeps nothing in memory, so a
// cycle half broken by one collector is finished by the next, and a cycle
// deleted while no collector ran is broken by the one that starts.
func TestForegroundCycleRestart(t *testing.T) {
	w := newWorld(t)
	links := w.links([]string{"widget/a", "book/b", "widget/c", "book/d"})
	w.cycle(t, links...)
	w.delete(t, w.widgets, "default", "a", metav1.DeletePropagationForeground)
	first := w.collector()
	for range 2 { // part of the cascade: b, then c deleted in the foreground
		if _, err := first.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if w.allGone(t, links[0]) {
		t.Fatal("the owner went before the cycle was broken")
	}
	collect(t, w.collector())
	if !w.allGone(t, links...) {
		t.Fatal("the second collector did not finish the cycle")
	}

	again := w.links([]string{"book/p", "widget/q"})
	w.cycle(t, again...)
	w.delete(t, w.books, "default", "p", metav1.DeletePropagationForeground)
	collect(t, gc.New(w.store.Upkeep(), func() *schemas.Registry { return w.reg }, gc.Options{}))
	if !w.allGone(t, again...) {
		t.Fatal("a cycle deleted before the collector started is stuck")
	}
}

// TestForegroundCycleKeepsOtherOwners: breaking a cycle never deletes a
// member that another, live owner keeps.
func TestForegroundCycleKeepsOtherOwners(t *testing.T) {
	w := newWorld(t)
	keeper := w.create(t, w.widgets, "default", "keeper", nil)
	links := w.links([]string{"widget/a", "book/b"})
	w.cycle(t, links...)
	// b has a second owner, which stays.
	b := w.get(t, w.books, "default", "b")
	refs := gjson.GetBytes(b, "metadata.ownerReferences").Raw
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":%s}}`, refs[:len(refs)-1]+fmt.Sprintf(
		`,{"apiVersion":"shop.example.com/v1","kind":"Widget","name":"keeper","uid":%q}]`, gjson.GetBytes(keeper, "metadata.uid").String()))
	if _, err := w.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: w.books, Namespace: "default", Name: "b"}, Type: engine.MergePatchType, Patch: []byte(patch), Options: engine.PatchOptions{}}); err != nil {
		t.Fatal(err)
	}
	w.delete(t, w.widgets, "default", "a", metav1.DeletePropagationForeground)
	collect(t, w.collector())
	if w.exists(t, w.widgets, "default", "a") {
		t.Fatal("a stays")
	}
	b = w.get(t, w.books, "default", "b")
	if gjson.GetBytes(b, "metadata.deletionTimestamp").Exists() || gjson.GetBytes(b, "metadata.ownerReferences.#.name").String() != `["keeper"]` {
		t.Fatalf("b, kept by keeper: %s", b)
	}
}
