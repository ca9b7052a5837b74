package check

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
)

// regexGen generates strings that a regular expression matches, for
// `pattern`: repetitions are kept short and character classes prefer
// printable ASCII.
type regexGen struct {
	re *syntax.Regexp
}

func newRegexGen(pattern string) (*regexGen, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return &regexGen{re: re.Simplify()}, nil
}

func (rg *regexGen) generate(r *rand.Rand) string {
	var b strings.Builder
	gen(&b, rg.re, r)
	return b.String()
}

func gen(b *strings.Builder, re *syntax.Regexp, r *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune, r))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(letters[r.IntN(26)])
	case syntax.OpCapture:
		gen(b, re.Sub[0], r)
	case syntax.OpStar:
		repeat(b, re.Sub[0], r, 0, 3)
	case syntax.OpPlus:
		repeat(b, re.Sub[0], r, 1, 3)
	case syntax.OpQuest:
		repeat(b, re.Sub[0], r, 0, 1)
	case syntax.OpRepeat:
		hi := re.Max
		if hi < 0 || hi > re.Min+3 {
			hi = re.Min + 3
		}
		repeat(b, re.Sub[0], r, re.Min, hi)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			gen(b, s, r)
		}
	case syntax.OpAlternate:
		gen(b, re.Sub[r.IntN(len(re.Sub))], r)
	}
	// Anchors, word boundaries and empty matches write nothing.
}

func repeat(b *strings.Builder, re *syntax.Regexp, r *rand.Rand, lo, hi int) {
	n := lo + r.IntN(hi-lo+1)
	for range n {
		gen(b, re, r)
	}
}

// classRune picks a rune of a class given as ranges [lo, hi, lo, hi...],
// from its printable ASCII part when it has one.
func classRune(ranges []rune, r *rand.Rand) rune {
	var ascii []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := max(ranges[i], 0x21); c <= min(ranges[i+1], 0x7e); c++ {
			ascii = append(ascii, c)
		}
	}
	if len(ascii) > 0 {
		return ascii[r.IntN(len(ascii))]
	}
	if len(ranges) == 0 {
		return 'a'
	}
	i := r.IntN(len(ranges)/2) * 2
	return ranges[i]
}
