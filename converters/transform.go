package converters

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// value is a JSON value or its absence.
type value struct {
	raw string
	ok  bool
}

func present(raw string) value { return value{raw: raw, ok: true} }

func valueOf(r gjson.Result) value {
	if !r.Exists() {
		return value{}
	}
	return present(r.Raw)
}

// transform maps a value of one version to the other; rest carries the list
// elements one side has no place for (only the list kinds use it).
type transform interface {
	apply(v, rest value) (out, restOut value)
}

// identity moves a value as is (rename, nest, flatten).
type identity struct{}

func (identity) apply(v, _ value) (value, value) { return v, value{} }

// enumMap maps string values by a table; others pass unchanged.
type enumMap map[string]string

func (m enumMap) apply(v, _ value) (value, value) {
	r := gjson.Parse(v.raw)
	if v.ok && r.Type == gjson.String {
		if to, ok := m[r.Str]; ok {
			return present(mustQuote(to)), value{}
		}
	}
	return v, value{}
}

// wrap makes a scalar the first element of a list: [v, rest...].
type wrap struct{}

func (wrap) apply(v, rest value) (value, value) {
	var elems []string
	if v.ok {
		elems = append(elems, v.raw)
	}
	if rest.ok {
		gjson.Parse(rest.raw).ForEach(func(_, e gjson.Result) bool {
			elems = append(elems, e.Raw)
			return true
		})
	} else if !v.ok {
		return value{}, value{}
	}
	return present("[" + strings.Join(elems, ",") + "]"), value{}
}

// first takes a list's first element; the others (an empty list too) go to
// rest.
type first struct{}

func (first) apply(v, _ value) (value, value) {
	r := gjson.Parse(v.raw)
	if !v.ok || !r.IsArray() {
		return v, value{}
	}
	elems := r.Array()
	if len(elems) == 1 {
		return present(elems[0].Raw), value{}
	}
	var out value
	if len(elems) > 0 {
		out = present(elems[0].Raw)
		elems = elems[1:]
	}
	raws := make([]string, len(elems))
	for i, e := range elems {
		raws[i] = e.Raw
	}
	return out, present("[" + strings.Join(raws, ",") + "]")
}

// split cuts a string at sep into a list of strings.
type split string

func (s split) apply(v, _ value) (value, value) {
	r := gjson.Parse(v.raw)
	if !v.ok || r.Type != gjson.String {
		return v, value{}
	}
	b, _ := json.Marshal(strings.Split(r.Str, string(s)))
	return present(string(b)), value{}
}

// join joins a list of strings with sep.
type join string

func (j join) apply(v, _ value) (value, value) {
	r := gjson.Parse(v.raw)
	if !v.ok || !r.IsArray() {
		return v, value{}
	}
	var parts []string
	for _, e := range r.Array() {
		if e.Type != gjson.String {
			return v, value{}
		}
		parts = append(parts, e.Str)
	}
	return present(mustQuote(strings.Join(parts, string(j)))), value{}
}
