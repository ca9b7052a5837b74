package structural

import (
	"encoding/json"
)

// jsonEqual compares two decoded JSON values like reflect.DeepEqual, which
// kube-openapi uses: an int64 and a float64 are different values.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], ba[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	default:
		return a == b
	}
}

// enumEqual is kube-openapi's enum comparison: equal, or equal once the
// value is converted to the enum value's type (so 1.0 matches 1).
func enumEqual(x, e any) bool {
	switch e := e.(type) {
	case int64:
		if f, ok := x.(float64); ok {
			return int64(f) == e
		}
	case float64:
		if i, ok := x.(int64); ok {
			return float64(i) == e
		}
	case string:
		// reflect converts an integer to the string of its rune.
		if i, ok := x.(int64); ok {
			r := "\uFFFD"
			if int64(rune(i)) == i {
				r = string(rune(i))
			}
			return r == e
		}
	case nil:
		return false
	}
	return jsonEqual(x, e)
}

// hasDuplicates is uniqueItems.
func hasDuplicates(a []any) bool {
	for i := 1; i < len(a); i++ {
		for j := 0; j < i; j++ {
			if jsonEqual(a[i], a[j]) {
				return true
			}
		}
	}
	return false
}

// compoundKey renders a map or list as JSON to compare it in a set.
func compoundKey(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}
