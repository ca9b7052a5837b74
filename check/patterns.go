package check

import "regexp"

// pattern is a schema's pattern compiled twice: to match with and to
// generate from.
type pattern struct {
	re  *regexp.Regexp
	gen *regexGen
}

// patterns keeps each pattern compiled once for the objects of one
// resource version: compiling it anew for every string generated was
// most of the generator's time in a start's round-trip proof. Not safe
// for concurrent use, as the generator using it is not.
type patterns map[string]*pattern

// compiled is pattern p compiled, or nil when it does not compile.
func (ps patterns) compiled(p string) *pattern {
	if c, ok := ps[p]; ok {
		return c
	}
	ps[p] = compilePattern(p)
	return ps[p]
}

func compilePattern(p string) *pattern {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	gen, err := newRegexGen(p)
	if err != nil {
		return nil
	}
	return &pattern{re: re, gen: gen}
}
