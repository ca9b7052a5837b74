package converters

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A rule whose paths go into list elements (spec.ports[*].portName) runs
// an inner step, whose paths are relative to one element, on every element
// of the list. The list is the same list in both versions: at the same
// path, or moved by other rules (rename, nest, flatten) of the same rule
// list; the step finds it where it is when the step runs.

// each is how an element step reaches its elements.
type each struct {
	// levels is the list where it is when the step runs, split at its
	// [*]: the first part from the object root, each other from an
	// element of the list before. levelsR: the same with the first part
	// below Rules.top.
	levels, levelsR []*loc
	// spokeList and hubList are the list in each version (with [*] for
	// the lists it is in): where its elements are when the object is in
	// that version, to name them in the bookkeeping.
	spokeList, hubList path
	inner              *step
}

// elemEntry is what one rule kept aside of one list element: Path names
// the element (with elemRefs) in the object it was kept on.
type elemEntry struct {
	Path []any  `json:"p"`
	E    *entry `json:"e"`
}

// runEach runs the inner steps of steps, element steps of one list in
// the order to run, on every element of that list, in one pass.
func runEach(obj []byte, steps []*step, toHub, rel bool, b *books) ([]byte, error) {
	levels := steps[0].each.levels
	if rel {
		levels = steps[0].each.levelsR
	}
	eb := &books{in: &entry{}, out: &entry{}} // reused for every element
	return visitElems(obj, levels, nil, func(elem []byte, idx []int) ([]byte, error) {
		key := ""
		for _, s := range steps {
			var err error
			if elem, err = s.runInner(elem, idx, &key, toHub, b, eb); err != nil {
				return nil, err
			}
		}
		return elem, nil
	})
}

var noEntry = &entry{}

// runInner runs s.each.inner on elem, the element at idx, with eb as
// scratch; key caches elemKey(idx).
func (s *step) runInner(elem []byte, idx []int, key *string, toHub bool, b, eb *books) ([]byte, error) {
	eb.in, *eb.out = noEntry, entry{}
	if byElem := b.elemIn[s.key]; byElem != nil {
		if *key == "" {
			*key = elemKey(idx)
		}
		if in := byElem[*key]; in != nil {
			eb.in = in
		}
	}
	inner := s.each.inner
	out := elem
	switch {
	case inner.from == nil && inner.to == nil: // the element itself (enum)
		t, u := inner.fwd, inner.back
		if !toHub {
			t, u = u, t
		}
		out = []byte(inner.map1(present(string(elem)), t, u, eb.in, eb.out).raw)
	case gjson.ParseBytes(elem).IsObject(): // else there is no field to map
		var err error
		if out, err = inner.run(elem, toHub, false, eb); err != nil {
			return nil, err
		}
	}
	if !eb.out.empty() {
		list := s.each.spokeList
		if toHub {
			list = s.each.hubList
		}
		kept := *eb.out
		b.elemOut = append(b.elemOut, keptElem{key: s.key, list: list, idx: append([]int(nil), idx...), e: &kept})
	}
	return out, nil
}

// sameList: a and b go into the elements of one list, where it is when
// they run.
func (a *each) sameList(b *each) bool {
	if len(a.levels) != len(b.levels) {
		return false
	}
	for i := range a.levels {
		if !a.levels[i].p.equal(b.levels[i].p) {
			return false
		}
	}
	return true
}

// visitElems calls fn on every element of the list at levels[0] in obj,
// going into the lists of levels[1:] first when there are more, and puts
// back the lists fn changed. idx is the index of the element at each
// level. A value that is not a list is left as it is.
func visitElems(obj []byte, levels []*loc, idx []int, fn func(elem []byte, idx []int) ([]byte, error)) ([]byte, error) {
	r := gjson.GetBytes(obj, levels[0].get)
	if !r.IsArray() {
		return obj, nil
	}
	b := make([]byte, 0, len(r.Raw)+16)
	b = append(b, '[')
	changed, i := false, 0
	var err error
	r.ForEach(func(_, e gjson.Result) bool {
		raw := []byte(e.Raw)
		ix := append(idx[:len(idx):len(idx)], i)
		out := raw
		switch {
		case len(levels) == 1:
			out, err = fn(raw, ix)
		case e.IsObject():
			out, err = visitElems(raw, levels[1:], ix, fn)
		}
		if err != nil {
			return false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, out...)
		changed = changed || !bytes.Equal(out, raw)
		i++
		return true
	})
	if err != nil || !changed {
		return obj, err
	}
	b = append(b, ']')
	return setAt(obj, levels[0], string(b))
}

// elemKey names an element by its index at each level: "2", "0.3".
func elemKey(idx []int) string {
	var b strings.Builder
	for i, n := range idx {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// elemPath is the path of the element at idx of list (one index per [*]).
func elemPath(list path, idx []int) []any {
	p := make([]any, 0, len(list)+1)
	n := 0
	for _, s := range list {
		if _, ok := s.(every); ok {
			s = idx[n]
			n++
		}
		p = append(p, s)
	}
	return append(p, idx[n])
}

// locateIn finds, in obj (the object as it comes, whose schema is sh),
// the elements of what the target version kept: it returns the fields to
// put back before the steps and fills b.elemIn.
func (b *books) locateIn(obj []byte, sh *shape) ([]keptField, error) {
	cut, err := located(obj, sh, b.in.Cut)
	if err != nil || len(b.in.Elems) == 0 {
		return cut, err
	}
	b.elemIn = make(map[string]map[string]*entry, len(b.in.Elems))
	for key, list := range b.in.Elems {
		paths := make([][]any, len(list))
		for i, ee := range list {
			if ee.E == nil {
				return nil, bookkeepingErr("rule %s: element without data", key)
			}
			paths[i] = ee.Path
		}
		found, err := resolve(obj, sh, paths)
		if err != nil {
			return nil, err
		}
		byElem := map[string]*entry{}
		for i, p := range found {
			if p == nil {
				continue // the element is gone
			}
			var idx []int
			for _, s := range p {
				if n, ok := s.(int); ok {
					idx = append(idx, n)
				}
			}
			byElem[elemKey(idx)] = list[i].E
		}
		b.elemIn[key] = byElem
	}
	return cut, nil
}

// identifyElems moves what the element steps kept into b.out.Elems, each
// element named as it is in obj, the converted object, whose schema is sh.
func (b *books) identifyElems(obj []byte, sh *shape) {
	if len(b.elemOut) == 0 {
		return
	}
	paths := make([][]any, len(b.elemOut))
	for i, k := range b.elemOut {
		paths[i] = elemPath(k.list, k.idx)
	}
	identify(obj, sh, paths)
	b.out.Elems = map[string][]elemEntry{}
	for i, k := range b.elemOut {
		b.out.Elems[k.key] = append(b.out.Elems[k.key], elemEntry{Path: paths[i], E: k.e})
	}
}

// planElements finds, for every step whose paths go into list elements,
// where its list is when it runs, checks that the list of its spoke path
// is the list of its hub path, and gives it its each. Steps run in order,
// so the place of a list when a step runs depends on the rules before it
// that move the list (or a parent of it); a step that moves lists inside
// elements moves them where its own list is then.
func (c *compiler) planElements(steps []*step) {
	// runFrom and runTo: each step's paths where they are when it runs;
	// run: where the list of an element step is then.
	runFrom, runTo := make([]path, len(steps)), make([]path, len(steps))
	run := make([]path, len(steps))
	for i, s := range steps {
		runFrom[i], runTo[i] = s.from, s.to
		if s.from.stars() == 0 && s.to.stars() == 0 {
			continue
		}
		runFrom[i], runTo[i] = nil, nil
		if s.from == nil {
			continue // a constant of a hub-only field, planned below
		}
		ls, fin, _ := s.from.lastList()
		run[i] = moved(ls, steps[:i], runFrom[:i], runTo[:i])
		_, tin, _ := s.to.lastList()
		runFrom[i], runTo[i] = joinList(run[i], fin), joinList(run[i], tin)
	}
	for i, s := range steps {
		if s.from.stars() == 0 && s.to.stars() == 0 {
			continue
		}
		later := func(p path) path { return moved(p, steps[i+1:], runFrom[i+1:], runTo[i+1:]) }
		switch {
		case s.from == nil: // constant of a hub-only field
			lh, tin, _ := s.to.lastList()
			run[i] = movedBack(lh, steps[i+1:], runFrom[i+1:], runTo[i+1:])
			ls := movedBack(run[i], steps[:i], runFrom[:i], runTo[:i])
			if c.isList(c.spoke, ls, s.at, "spoke (this version)") {
				s.each = newEach(s, run[i], ls, lh, nil, tin)
			}
		case s.to == nil: // constant of a spoke-only field
			ls, fin, _ := s.from.lastList()
			lh := later(run[i])
			if c.isList(c.hub, lh, s.at, "hub (storage version)") {
				s.each = newEach(s, run[i], ls, lh, fin, nil)
			}
		default:
			ls, fin, _ := s.from.lastList()
			lh, tin, _ := s.to.lastList()
			if end := later(run[i]); !end.equal(lh) {
				c.addf(s.at, "%s and %s are not in one list: the rules take the spoke's %s to the hub's %s, not to %s; move the list with a rule of its own (rename: {from: %s, to: %s}) or name the same list",
					s.from, s.to, ls, end, lh, ls, lh)
				continue
			}
			s.each = newEach(s, run[i], ls, lh, fin, tin)
		}
	}
}

func newEach(s *step, run, ls, lh, fin, tin path) *each {
	inner := &step{kind: s.kind, key: "*", from: nonEmpty(fin), to: nonEmpty(tin), fwd: s.fwd, back: s.back, constant: s.constant}
	inner.fromL, inner.toL = newLoc(inner.from), newLoc(inner.to)
	e := &each{spokeList: ls, hubList: lh, inner: inner}
	start := 0
	for i, seg := range run {
		if _, ok := seg.(every); ok {
			e.levels = append(e.levels, newLoc(run[start:i]))
			start = i + 1
		}
	}
	e.levels = append(e.levels, newLoc(run[start:]))
	return e
}

// below sets e.levelsR for Rules.top; false when the list is top itself.
func (e *each) below(top string) bool {
	first := e.levels[0].p
	if len(first) < 2 || first[0] != top {
		return false
	}
	e.levelsR = append([]*loc{newLoc(first[1:])}, e.levels[1:]...)
	return true
}

func (c *compiler) isList(sh *shape, p path, at, side string) bool {
	if found := sh.lookup(p); found == nil || found.items == nil {
		c.addf(at, "the %s schema has no list %s for the elements this rule names", side, p)
		return false
	}
	return true
}

func nonEmpty(p path) path {
	if len(p) == 0 {
		return nil
	}
	return p
}

// joinList is list[*].inner ("" inner: nil).
func joinList(list, inner path) path {
	if inner == nil {
		return nil
	}
	p := append(append(path{}, list...), every{})
	return append(p, inner...)
}

// isMover: the step moves a value as it is, so a list below its from
// path goes to its to path.
func (s *step) isMover() bool {
	return (s.kind == kindRename || s.kind == kindNest || s.kind == kindFlatten) && s.from != nil && s.to != nil
}

// moved is where steps (whose paths when they run are from and to) take
// the value at p, in order.
func moved(p path, steps []*step, from, to []path) path {
	for i, m := range steps {
		if m.isMover() && from[i] != nil && p.hasPrefix(from[i]) {
			p = append(append(path{}, to[i]...), p[len(from[i]):]...)
		}
	}
	return p
}

// movedBack is where the value at p was before steps ran.
func movedBack(p path, steps []*step, from, to []path) path {
	for i := len(steps) - 1; i >= 0; i-- {
		if m := steps[i]; m.isMover() && to[i] != nil && p.hasPrefix(to[i]) {
			p = append(append(path{}, from[i]...), p[len(to[i]):]...)
		}
	}
	return p
}

// movesList reports whether m moves (a parent of) a list that e goes
// into: the two do not conflict, m takes e's list where e expects it.
func movesList(m, e *step) bool {
	if !m.isMover() || e.from.stars()+e.to.stars() == 0 {
		return false
	}
	return (e.from == nil || underList(e.from, m.from)) && (e.to == nil || underList(e.to, m.to))
}

// underList: q is p up to one of its [*], or a parent of that.
func underList(p, q path) bool {
	for i, s := range p {
		if _, ok := s.(every); ok && p[:i].hasPrefix(q) {
			return true
		}
	}
	return false
}
