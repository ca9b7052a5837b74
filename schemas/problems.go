package schemas

import (
	"fmt"
	"sort"
	"strings"
)

// problems collects every Problem found while loading; nothing stops at the
// first one.
type problems struct {
	list []Problem
}

func (p *problems) add(file, pointer, format string, args ...any) {
	p.list = append(p.list, Problem{File: file, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// err returns a *LoadError with every problem, grouped by file in path
// order and, within a file, in the order they were found; nil if none.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := append([]Problem(nil), p.list...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].File < list[j].File })
	return &LoadError{Problems: list}
}

// ptr joins JSON pointer tokens onto base, escaping each token (RFC 6901).
func ptr(base string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

// The RFC 6901 escapes; Replacers are immutable and safe to share.
var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapeToken escapes one token of a JSON pointer (RFC 6901): "~" as
// "~0", "/" as "~1".
func EscapeToken(t string) string { return tokenEscaper.Replace(t) }

func unescapeToken(t string) string { return tokenUnescaper.Replace(t) }

// splitPointer returns the unescaped tokens of a JSON pointer ("" is the
// root and has none).
func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range parts {
		parts[i] = unescapeToken(t)
	}
	return parts
}

func index(i int) string { return fmt.Sprint(i) }
