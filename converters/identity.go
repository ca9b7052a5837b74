package converters

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Data kept aside from inside a list element must go back to that element,
// even when a client of the version the object was in reordered the list
// or removed elements from it. So a kept path does not name an element by
// its index alone but by an elemRef: its index and its identity in the
// object the data was taken from (docs/conversion.md, "List elements"):
//
//   - in a list of type map (x-kubernetes-list-map-keys), the values of
//     its keys: the data follows the element with the same keys, however
//     its other fields changed;
//   - in any other list, its whole value: the data follows an element
//     that is unchanged.
//
// An element that no longer exists, or no longer matches, loses its data.

// elemRef is a list element known by its index and identity when its data
// was kept aside. In the annotation it is {"i": index, "id": identity}.
type elemRef struct {
	i  int
	id string
}

func (e elemRef) json() map[string]any { return map[string]any{"i": e.i, "id": e.id} }

// elemID is the identity of e, an element of a list of shape list.
func elemID(e gjson.Result, list *shape) string {
	if list != nil && len(list.mapKeys) > 0 && e.IsObject() {
		var b strings.Builder
		b.WriteString("k:")
		for i, k := range list.mapKeys {
			if i > 0 {
				b.WriteByte(',')
			}
			if v := e.Get(gjson.Escape(k)); v.Exists() {
				canonical(&b, v)
			} else {
				b.WriteString("null")
			}
		}
		return b.String()
	}
	h := fnv.New64a()
	canonical(h, e)
	return "h:" + hex.EncodeToString(h.Sum(nil))
}

// canonical writes r so that the same value is written the same way
// whatever its key order, spacing, string escapes or number spelling.
func canonical(w io.Writer, r gjson.Result) {
	switch {
	case r.IsObject():
		m := r.Map()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		_, _ = io.WriteString(w, "{")
		for i, k := range keys {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			_, _ = io.WriteString(w, mustQuote(k)+":")
			canonical(w, m[k])
		}
		_, _ = io.WriteString(w, "}")
	case r.IsArray():
		_, _ = io.WriteString(w, "[")
		for i, e := range r.Array() {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			canonical(w, e)
		}
		_, _ = io.WriteString(w, "]")
	case r.Type == gjson.String:
		_, _ = io.WriteString(w, mustQuote(r.Str))
	case r.Type == gjson.Number:
		_, _ = io.WriteString(w, strconv.FormatFloat(r.Num, 'g', -1, 64))
	default:
		_, _ = io.WriteString(w, r.Raw)
	}
}

// identify replaces every list index of the paths with an elemRef of the
// element at that index in obj, whose schema is sh. Paths without an
// index are returned as they are.
func identify(obj []byte, sh *shape, paths [][]any) {
	var root gjson.Result
	parsed := false
	ids := map[string]string{}           // by the element's gjson path
	lists := map[string][]gjson.Result{} // the elements, by the list's gjson path
	for _, p := range paths {
		if !hasIndex(path(p)) {
			continue
		}
		if !parsed {
			root, parsed = gjson.ParseBytes(obj), true
		}
		cur, csh := root, sh
		var at strings.Builder
		for j, s := range p {
			if at.Len() > 0 {
				at.WriteByte('.')
			}
			switch s := s.(type) {
			case string:
				at.WriteString(gjson.Escape(s))
				cur = cur.Get(gjson.Escape(s))
				csh = childShape(csh, s)
			case int:
				elems, ok := lists[at.String()]
				if !ok {
					elems = cur.Array()
					lists[at.String()] = elems
				}
				var elem gjson.Result
				if s < len(elems) {
					elem = elems[s]
				}
				at.WriteString(strconv.Itoa(s))
				id, ok := ids[at.String()]
				if !ok {
					id = elemID(elem, csh)
					ids[at.String()] = id
				}
				p[j] = elemRef{i: s, id: id}.json()
				cur = elem
				if csh != nil {
					csh = csh.items
				}
			}
		}
	}
}

func childShape(sh *shape, k string) *shape {
	if sh == nil {
		return nil
	}
	return sh.child(k)
}

// resolver finds the elements that paths with elemRefs name in obj, whose
// schema is sh. Each element of a list goes to one elemRef at most: first
// to one naming it by its index and identity, then to the first one with
// its identity.
type resolver struct {
	root  gjson.Result
	sh    *shape
	lists map[string]*listMatch // by the list's path
}

type listMatch struct {
	ids   []string
	taken []bool
	got   map[elemRef]int // -1: no element
}

// resolve returns the paths with every elemRef replaced by the index of
// its element in obj, or nil for a path whose element is gone. A path that
// is not valid bookkeeping is an error.
func resolve(obj []byte, sh *shape, paths [][]any) ([]path, error) {
	out := make([]path, len(paths))
	var refs []int // the paths that hold elemRefs
	for i, raw := range paths {
		p, ok := pathFromAny(raw)
		if !ok {
			return nil, bookkeepingErr("bad path %v", raw)
		}
		out[i] = p
		for _, s := range p {
			if _, is := s.(elemRef); is {
				refs = append(refs, i)
				break
			}
		}
	}
	if len(refs) == 0 {
		return out, nil
	}
	r := &resolver{root: gjson.ParseBytes(obj), sh: sh, lists: map[string]*listMatch{}}
	// Depth by depth: the first elemRef of every path, then the next...
	for len(refs) > 0 {
		type want struct {
			rec, seg int
			list     path
		}
		var wants []want
		var next []int
		for _, i := range refs {
			p := out[i]
			if p == nil {
				continue
			}
			for j, s := range p {
				if _, is := s.(elemRef); is {
					wants = append(wants, want{rec: i, seg: j, list: p[:j]})
					next = append(next, i)
					break
				}
			}
		}
		for pass := 0; pass < 2; pass++ {
			for _, w := range wants {
				if out[w.rec] == nil {
					continue
				}
				ref, open := out[w.rec][w.seg].(elemRef)
				if !open {
					continue // found in pass 0
				}
				if n, done := r.match(w.list, ref, pass); done {
					if n < 0 {
						out[w.rec] = nil
						continue
					}
					out[w.rec][w.seg] = n
				}
			}
		}
		refs = next
	}
	return out, nil
}

// match finds the element of the list at p that ref names: in pass 0 only
// the element at ref's index if it has ref's identity, in pass 1 the first
// free one with it. done is false when pass 0 leaves ref to pass 1.
func (r *resolver) match(p path, ref elemRef, pass int) (n int, done bool) {
	key := p.get()
	lm := r.lists[key]
	if lm == nil {
		lm = &listMatch{got: map[elemRef]int{}}
		list := r.root
		if len(p) > 0 {
			list = r.root.Get(key)
		}
		if list.IsArray() {
			lsh := r.sh.at(p)
			for _, e := range list.Array() {
				lm.ids = append(lm.ids, elemID(e, lsh))
			}
			lm.taken = make([]bool, len(lm.ids))
		}
		r.lists[key] = lm
	}
	if n, ok := lm.got[ref]; ok {
		return n, true
	}
	if pass == 0 {
		if ref.i < len(lm.ids) && !lm.taken[ref.i] && lm.ids[ref.i] == ref.id {
			lm.taken[ref.i], lm.got[ref] = true, ref.i
			return ref.i, true
		}
		return 0, false
	}
	for j, id := range lm.ids {
		if !lm.taken[j] && id == ref.id {
			lm.taken[j], lm.got[ref] = true, j
			return j, true
		}
	}
	lm.got[ref] = -1
	return -1, true
}

func bookkeepingErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBookkeeping}, args...)...)
}
