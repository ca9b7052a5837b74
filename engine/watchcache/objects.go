package watchcache

import (
	"slices"
	"strings"

	"github.com/specd-io/specd/engine/storage"
)

// entry is one object as stored; entries are never changed, only
// replaced, so a list can hand their bytes out without copying.
type entry struct {
	key   string
	value []byte
	rev   int64
}

// objects is the current value of every key, by key and in key order.
type objects struct {
	byKey  map[string]*entry
	sorted []*entry
}

func newObjects() objects { return objects{byKey: map[string]*entry{}} }

func compareKey(e *entry, key string) int { return strings.Compare(e.key, key) }

// load replaces everything with items, which are in key order.
func (o *objects) load(items []storage.KeyValue) {
	o.byKey = make(map[string]*entry, len(items))
	o.sorted = make([]*entry, len(items))
	for i, kv := range items {
		e := &entry{key: kv.Key, value: kv.Value, rev: kv.ModRevision}
		o.byKey[kv.Key], o.sorted[i] = e, e
	}
}

// put stores e and returns the entry it replaced, if any.
func (o *objects) put(e *entry) *entry {
	prev := o.byKey[e.key]
	o.byKey[e.key] = e
	i, found := slices.BinarySearchFunc(o.sorted, e.key, compareKey)
	if found {
		o.sorted[i] = e
	} else {
		o.sorted = slices.Insert(o.sorted, i, e)
	}
	return prev
}

// remove deletes key and returns its entry, if any.
func (o *objects) remove(key string) *entry {
	prev := o.byKey[key]
	if prev == nil {
		return nil
	}
	delete(o.byKey, key)
	if i, found := slices.BinarySearchFunc(o.sorted, key, compareKey); found {
		o.sorted = slices.Delete(o.sorted, i, i+1)
	}
	return prev
}

// span returns the entries whose keys start with prefix.
func (o *objects) span(prefix string) []*entry {
	lo, _ := slices.BinarySearchFunc(o.sorted, prefix, compareKey)
	hi := lo
	for hi < len(o.sorted) && strings.HasPrefix(o.sorted[hi].key, prefix) {
		hi++
	}
	return o.sorted[lo:hi]
}

// list returns up to limit (0: all) entries under prefix, and how many
// more there are.
func (o *objects) list(prefix string, limit int64) ([]storage.KeyValue, int64) {
	span := o.span(prefix)
	var remaining int64
	if limit > 0 && int64(len(span)) > limit {
		remaining = int64(len(span)) - limit
		span = span[:limit]
	}
	return toKeyValues(span), remaining
}

// selected is the entry of key when key is set, else every entry under
// prefix.
func (o *objects) selected(prefix, key string) []storage.KeyValue {
	if key != "" {
		if e := o.byKey[key]; e != nil {
			return toKeyValues([]*entry{e})
		}
		return nil
	}
	return toKeyValues(o.span(prefix))
}

func toKeyValues(es []*entry) []storage.KeyValue {
	out := make([]storage.KeyValue, len(es))
	for i, e := range es {
		out[i] = storage.KeyValue{Key: e.key, Value: e.value, ModRevision: e.rev}
	}
	return out
}
