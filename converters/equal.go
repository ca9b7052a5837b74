package converters

import (
	"github.com/tidwall/gjson"
)

// jsonEqual reports whether two JSON texts hold the same value (object key
// order aside).
func jsonEqual(a, b string) bool {
	if a == b {
		return true
	}
	return firstDiff(gjson.Parse(a), gjson.Parse(b), nil) == nil
}

// firstDiff returns the path of the first place where a and b differ, nil
// when they are equal. Absent values are !Exists().
func firstDiff(a, b gjson.Result, p path) path {
	if a.Exists() != b.Exists() {
		return nonNil(p)
	}
	switch {
	case a.IsObject() && b.IsObject():
		return objectDiff(a, b, p)
	case a.IsArray() && b.IsArray():
		ea, eb := a.Array(), b.Array()
		for i := 0; i < len(ea) || i < len(eb); i++ {
			var x, y gjson.Result
			if i < len(ea) {
				x = ea[i]
			}
			if i < len(eb) {
				y = eb[i]
			}
			if d := firstDiff(x, y, p.child(i)); d != nil {
				return d
			}
		}
		return nil
	case a.Type != b.Type || a.IsObject() != b.IsObject() || a.IsArray() != b.IsArray():
		return nonNil(p)
	case a.Type == gjson.String:
		if a.Str != b.Str {
			return nonNil(p)
		}
	case a.Type == gjson.Number:
		if a.Raw != b.Raw && a.Num != b.Num {
			return nonNil(p)
		}
	}
	return nil
}

func objectDiff(a, b gjson.Result, p path) path {
	ma, mb := a.Map(), b.Map()
	var d path
	a.ForEach(func(k, v gjson.Result) bool {
		d = firstDiff(v, mb[k.Str], p.child(k.Str))
		return d == nil
	})
	if d != nil {
		return d
	}
	b.ForEach(func(k, v gjson.Result) bool {
		if _, ok := ma[k.Str]; !ok {
			d = p.child(k.Str)
		}
		return d == nil
	})
	return d
}

func nonNil(p path) path {
	if p == nil {
		return path{}
	}
	return p
}
