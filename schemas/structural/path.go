package structural

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// seg is one step of a path: a key, or an index into an array.
type seg struct {
	key   string
	index int
	isIdx bool // index is set rather than key
	addl  bool // key of a map governed by additionalProperties
}

// walkPath is the location in the object being walked, a stack of steps
// pushed and popped as the walk descends, rendered only when an error or a
// pruned field needs it.
type walkPath struct {
	segs []seg
}

func (w *walkPath) pushKey(k string)     { w.segs = append(w.segs, seg{key: k}) }
func (w *walkPath) pushAddlKey(k string) { w.segs = append(w.segs, seg{key: k, addl: true}) }
func (w *walkPath) pushIndex(i int)      { w.segs = append(w.segs, seg{index: i, isIdx: true}) }
func (w *walkPath) pop()                 { w.segs = w.segs[:len(w.segs)-1] }

// String renders the path as kube-openapi's validator and the pruner do:
// "spec.items[0].name", map keys as ".key".
func (w *walkPath) String() string { return render(w.segs, false) }

// fieldString renders the path as field.Path does, map keys as "[key]".
func (w *walkPath) fieldString() string { return render(w.segs, true) }

// child renders the path of child key k (field.Path style when bracketKeys).
func (w *walkPath) child(k string, bracketKeys bool) string {
	w.pushKey(k)
	s := render(w.segs, bracketKeys)
	w.pop()
	return s
}

func render(segs []seg, bracketKeys bool) string {
	var buf [128]byte
	b := buf[:0]
	for _, s := range segs {
		switch {
		case s.isIdx:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		case s.addl && bracketKeys:
			b = append(b, '[')
			b = append(b, s.key...)
			b = append(b, ']')
		default:
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, s.key...)
		}
	}
	return string(b)
}

// errPath is the field path kube-apiserver gives a schema error at the
// current location: the whole dotted name as one element, or nil at the root.
func (w *walkPath) errPath() *field.Path {
	if len(w.segs) == 0 {
		return nil
	}
	return field.NewPath(w.String())
}

// fieldPath is the field.Path of child k, rendered as field.Path would.
func (w *walkPath) fieldPath(k string) *field.Path {
	return field.NewPath(w.child(k, true))
}
