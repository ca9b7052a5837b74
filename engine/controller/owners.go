package controller

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// owners routes a change of any object to the controller of the object
// that owns it (its ownerReference with controller: true), as
// controller-runtime's Owns does: a child created, changed or deleted,
// by the reconciler or by hand, gets its owner reconciled.
type owners map[string]*Controller // by group/Kind

func ownersOf(ctrls []*Controller) owners {
	o := owners{}
	for _, c := range ctrls {
		r := c.rv.Resource
		o[r.Group+"/"+r.Kind] = c
	}
	return o
}

// enqueue queues the controlling owner of the event's object, if a
// controller reconciles it.
func (o owners) enqueue(ev engine.WatchEvent) {
	if ev.Type == storage.EventBookmark {
		return
	}
	refs := gjson.GetBytes(ev.Object, "metadata.ownerReferences")
	if !refs.IsArray() {
		return
	}
	for _, ref := range refs.Array() {
		if !ref.Get("controller").Bool() {
			continue
		}
		group, _, _ := strings.Cut(ref.Get("apiVersion").Str, "/")
		if !strings.Contains(ref.Get("apiVersion").Str, "/") {
			group = "" // the core group: "v1"
		}
		c := o[group+"/"+ref.Get("kind").Str]
		if c == nil {
			continue
		}
		ns := ""
		if c.rv.Resource.Namespaced() {
			ns = gjson.GetBytes(ev.Object, "metadata.namespace").Str
		}
		c.Enqueue(Key{Namespace: ns, Name: ref.Get("name").Str})
	}
}
