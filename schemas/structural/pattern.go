package structural

import (
	"regexp"
	"regexp/syntax"
)

// pattern is a compiled `pattern`. Patterns of the common shape
// ^[class]+$ or ^[class]*$ over ASCII are matched with a byte table, which is
// many times faster than the regexp engine; everything else uses regexp.
type pattern struct {
	re    *regexp.Regexp
	src   string
	table *[256]bool // non-nil for the fast path
	plus  bool       // at least one character
}

func compilePattern(src string) (*pattern, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re, src: src}
	p.table, p.plus = asciiClassRun(src)
	return p, nil
}

func (p *pattern) MatchString(s string) bool {
	if p.table == nil {
		return p.re.MatchString(s)
	}
	if p.plus && len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !p.table[s[i]] {
			return false
		}
	}
	return true
}

// asciiClassRun recognises ^[class]+$ and ^[class]*$ where the class holds
// only ASCII characters, and returns its byte table.
func asciiClassRun(src string) (*[256]bool, bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, false
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) != 3 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[2].Op != syntax.OpEndText {
		return nil, false
	}
	rep := re.Sub[1]
	if (rep.Op != syntax.OpPlus && rep.Op != syntax.OpStar) || len(rep.Sub) != 1 {
		return nil, false
	}
	class := rep.Sub[0]
	var table [256]bool
	switch class.Op {
	case syntax.OpCharClass:
		for i := 0; i+1 < len(class.Rune); i += 2 {
			lo, hi := class.Rune[i], class.Rune[i+1]
			if hi > 0x7f {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				table[r] = true
			}
		}
	case syntax.OpLiteral:
		if len(class.Rune) != 1 || class.Rune[0] > 0x7f || class.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		table[class.Rune[0]] = true
	default:
		return nil, false
	}
	return &table, rep.Op == syntax.OpPlus
}
