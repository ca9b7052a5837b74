package converters

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
)

// keepAside removes from obj every field that sh has no place for and
// appends it to kept.
func keepAside(obj []byte, sh *shape, skip skipSet, kept *[]keptField) ([]byte, error) {
	w := walker{skip: skip, cut: func(p path, v gjson.Result) {
		*kept = append(*kept, keptField{Path: []any(p), Val: json.RawMessage(v.Raw)})
	}}
	w.walk(gjson.ParseBytes(obj), sh, true)
	if w.n == 0 {
		return obj, nil
	}
	return cutFields(obj, (*kept)[len(*kept)-w.n:])
}

// cutFields deletes the fields, rebuilding each parent object once: one
// sjson edit per parent, not per field, however many fields there are.
func cutFields(obj []byte, fields []keptField) ([]byte, error) {
	type parent struct {
		p    path
		keys map[string]bool
	}
	var parents []*parent
	byPath := map[string]*parent{}
	for _, f := range fields {
		p := path(f.Path)
		up := p[:len(p)-1]
		key := up.get()
		pa := byPath[key]
		if pa == nil {
			pa = &parent{p: up, keys: map[string]bool{}}
			byPath[key] = pa
			parents = append(parents, pa)
		}
		pa.keys[p[len(p)-1].(string)] = true
	}
	for _, pa := range parents {
		r := gjson.ParseBytes(obj)
		if len(pa.p) > 0 {
			r = gjson.GetBytes(obj, pa.p.get())
		}
		b := make([]byte, 0, len(r.Raw))
		b = append(b, '{')
		r.ForEach(func(k, v gjson.Result) bool {
			if !pa.keys[k.Str] {
				b = appendMember(b, k.Raw, v.Raw)
			}
			return true
		})
		b = append(b, '}')
		if len(pa.p) == 0 {
			obj = b
			continue
		}
		var err error
		if obj, err = setRaw(obj, pa.p, string(b)); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// walker walks an object along its shape; stack is the current path,
// copied only for a field that is cut.
type walker struct {
	stack []seg
	cut   func(path, gjson.Result)
	skip  skipSet
	n     int // fields cut
}

func (w *walker) walk(r gjson.Result, sh *shape, root bool) {
	if sh == nil {
		return
	}
	switch {
	case r.IsObject():
		r.ForEach(func(k, v gjson.Result) bool {
			if (root || sh.embedded) && isMetaField(k.Str) {
				return true
			}
			c := sh.child(k.Str)
			w.stack = append(w.stack, seg{key: k.Str})
			if c == nil {
				if !sh.open {
					w.cut(w.path(), v)
					w.n++
				}
			} else if !c.fullyOpen() && !w.skip[c] {
				w.walk(v, c, false)
			}
			w.stack = w.stack[:len(w.stack)-1]
			return true
		})
	case r.IsArray() && sh.items != nil:
		i := 0
		r.ForEach(func(_, v gjson.Result) bool {
			w.stack = append(w.stack, seg{idx: i, isIdx: true})
			w.walk(v, sh.items, false)
			w.stack = w.stack[:len(w.stack)-1]
			i++
			return true
		})
	}
}

// seg is a step of the walker's path, kept unboxed.
type seg struct {
	key   string
	idx   int
	isIdx bool
}

func (w *walker) path() path {
	p := make(path, len(w.stack))
	for i, s := range w.stack {
		if s.isIdx {
			p[i] = s.idx
		} else {
			p[i] = s.key
		}
	}
	return p
}

func isMetaField(k string) bool {
	return k == "apiVersion" || k == "kind" || k == "metadata"
}

// restore puts back kept fields, whose paths hold no elemRef (see
// resolve), rebuilding each parent object once.
func restore(obj []byte, fields []keptField) ([]byte, error) {
	type parent struct {
		p    path
		keys []string
		vals map[string]json.RawMessage
	}
	var parents []*parent
	byPath := map[string]*parent{}
	for _, f := range fields {
		p, ok := pathFromAny(f.Path)
		if !ok {
			return nil, fmt.Errorf("%w: bad path %v", ErrBookkeeping, f.Path)
		}
		k, isKey := p[len(p)-1].(string)
		if !isKey {
			return nil, fmt.Errorf("%w: path %v ends in an index", ErrBookkeeping, f.Path)
		}
		up := p[:len(p)-1]
		pa := byPath[up.get()]
		if pa == nil {
			pa = &parent{p: up, vals: map[string]json.RawMessage{}}
			byPath[up.get()] = pa
			parents = append(parents, pa)
		}
		if _, dup := pa.vals[k]; !dup {
			pa.keys = append(pa.keys, k)
		}
		pa.vals[k] = f.Val
	}
	var err error
	for _, pa := range parents {
		r := gjson.ParseBytes(obj)
		if len(pa.p) > 0 {
			r = gjson.GetBytes(obj, pa.p.get())
		}
		if !r.IsObject() && (r.Exists() || hasIndex(pa.p)) {
			continue // the object it was in has changed shape
		}
		b := []byte{'{'}
		r.ForEach(func(k, v gjson.Result) bool {
			if _, back := pa.vals[k.Str]; !back {
				b = appendMember(b, k.Raw, v.Raw)
			}
			return true
		})
		for _, k := range pa.keys {
			b = appendMember(b, mustQuote(k), string(pa.vals[k]))
		}
		b = append(b, '}')
		if len(pa.p) == 0 {
			obj = b
			continue
		}
		if obj, err = setRaw(obj, pa.p, string(b)); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// located resolves the elemRefs of kept fields in obj, whose schema is sh:
// the fields to restore, without those whose element is gone.
func located(obj []byte, sh *shape, fields []keptField) ([]keptField, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	paths := make([][]any, len(fields))
	for i, f := range fields {
		paths[i] = f.Path
	}
	found, err := resolve(obj, sh, paths)
	if err != nil {
		return nil, err
	}
	out := make([]keptField, 0, len(fields))
	for i, p := range found {
		if p != nil {
			out = append(out, keptField{Path: []any(p), Val: fields[i].Val})
		}
	}
	return out, nil
}

// identifyFields names the list elements of the fields' paths by their
// identity in obj, whose schema is sh.
func identifyFields(obj []byte, sh *shape, fields []keptField) {
	if len(fields) == 0 {
		return
	}
	paths := make([][]any, len(fields))
	for i, f := range fields {
		paths[i] = f.Path
	}
	identify(obj, sh, paths)
}

func appendMember(b []byte, key, val string) []byte {
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(b, key...)
	b = append(b, ':')
	return append(b, val...)
}

// pathFromAny reads a kept path: keys (strings), list indices (numbers;
// specd wrote only these before elemRefs) and elemRefs ({"i": n, "id": s}).
func pathFromAny(segs []any) (path, bool) {
	p := make(path, len(segs))
	for i, s := range segs {
		switch s := s.(type) {
		case string:
			p[i] = s
		case float64:
			if s < 0 || s != float64(int(s)) {
				return nil, false
			}
			p[i] = int(s)
		case int:
			p[i] = s
		case map[string]any:
			n, okN := s["i"].(float64)
			if !okN {
				if in, isInt := s["i"].(int); isInt {
					n, okN = float64(in), true
				}
			}
			id, okID := s["id"].(string)
			if !okN || !okID || n < 0 || n != float64(int(n)) || len(s) != 2 {
				return nil, false
			}
			p[i] = elemRef{i: int(n), id: id}
		default:
			return nil, false
		}
	}
	return p, len(p) > 0
}

func hasIndex(p path) bool {
	for _, s := range p {
		if _, ok := s.(int); ok {
			return true
		}
	}
	return false
}
