package server

import "github.com/tidwall/gjson"

// typedList leaves apiVersion and kind out of the items of a list, as
// kube-apiserver's typed lists of its built-in kinds are written (their Go
// items carry no type): a typed client reading a list in JSON then gets
// items equal to the objects it wrote and read back. Lists of custom
// resources keep them, as kube's unstructured lists do.
func typedList(list []byte) []byte {
	items := gjson.GetBytes(list, "items")
	if !items.IsArray() || items.Index == 0 {
		return list
	}
	out := make([]byte, 0, len(list))
	out = append(out, list[:items.Index]...)
	out = append(out, '[')
	first := true
	items.ForEach(func(_, item gjson.Result) bool {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendUntyped(out, item)
		return true
	})
	out = append(out, ']')
	return append(out, list[items.Index+len(items.Raw):]...)
}

// appendUntyped appends the object item without its apiVersion and kind.
func appendUntyped(out []byte, item gjson.Result) []byte {
	out = append(out, '{')
	first := true
	item.ForEach(func(key, value gjson.Result) bool {
		if key.Str == "apiVersion" || key.Str == "kind" {
			return true
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, key.Raw...)
		out = append(out, ':')
		out = append(out, value.Raw...)
		return true
	})
	return append(out, '}')
}
