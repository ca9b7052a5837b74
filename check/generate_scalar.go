package check

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/schemas/structural"
)

func extension(s *openapi3.Schema, name string, out any) (bool, error) {
	return structural.Extension(s, name, out)
}

// normalize turns a value from a schema (an enum entry) into the form
// decoded objects have: int64 for integers, fresh maps and slices.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &out); err != nil {
		return v
	}
	return out
}

// uniqueKey identifies an item of a set (all of it) or of a map list (its
// key fields).
func uniqueKey(v any, mapKeys []string) string {
	if m, ok := v.(map[string]any); ok && len(mapKeys) > 0 {
		parts := make([]any, len(mapKeys))
		for i, k := range mapKeys {
			parts[i] = m[k]
		}
		v = parts
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const letters = "abcdefghijklmnopqrstuvwxyz0123456789"

// word is lowercase letters and digits starting with a letter, of a
// length in [lo, hi].
func (g *generator) word(lo, hi int) string {
	if hi < lo {
		hi = lo
	}
	n := lo + g.r.IntN(hi-lo+1)
	b := make([]byte, n)
	for i := range b {
		if i == 0 {
			b[i] = letters[g.r.IntN(26)]
		} else {
			b[i] = letters[g.r.IntN(len(letters))]
		}
	}
	return string(b)
}

func (g *generator) str(s *openapi3.Schema) string {
	lo := int(s.MinLength)
	hi := lo + 12
	if s.MaxLength != nil && int(*s.MaxLength) < hi {
		hi = int(*s.MaxLength)
	}
	if f := g.format(s.Format); f != "" {
		return f
	}
	if s.Pattern != "" {
		if v, ok := g.matching(s.Pattern, lo, hi); ok {
			return v
		}
	}
	if g.chance(0.25) {
		return g.text(lo, hi)
	}
	return g.word(lo, hi)
}

// textRunes are the characters of free text: spaces, punctuation and
// non-ASCII letters find the conversions that split, join or escape.
var textRunes = []rune("abcXYZ019 -_.,:/=\"'éß中")

// text is a free-form string of a length in [lo, hi], in runes.
func (g *generator) text(lo, hi int) string {
	if hi < lo {
		hi = lo
	}
	n := lo + g.r.IntN(hi-lo+1)
	b := make([]rune, n)
	for i := range b {
		b[i] = textRunes[g.r.IntN(len(textRunes))]
	}
	return string(b)
}

// matching generates strings from pattern until one has a length in
// [lo, hi] and matches.
func (g *generator) matching(pattern string, lo, hi int) (string, bool) {
	p := g.patterns.compiled(pattern)
	if p == nil {
		return "", false
	}
	for range 30 {
		v := p.gen.generate(g.r)
		if n := utf8.RuneCountInString(v); n >= lo && n <= hi && p.re.MatchString(v) {
			return v, true
		}
	}
	return "", false
}

// format returns a value of a string format kube-apiserver validates, ""
// for any other format.
func (g *generator) format(format string) string {
	n := g.r.IntN(200) + 1
	switch strings.ReplaceAll(format, "-", "") {
	case "bsonobjectid":
		return fmt.Sprintf("%024x", g.r.Uint64())
	case "uri":
		return fmt.Sprintf("https://example.com/%s", g.word(1, 8))
	case "email":
		return fmt.Sprintf("%s@example.com", g.word(1, 8))
	case "hostname":
		return fmt.Sprintf("%s.example.com", g.word(1, 8))
	case "ipv4":
		return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), n)
	case "ipv6":
		return fmt.Sprintf("fd00::%x", n)
	case "cidr":
		return fmt.Sprintf("10.%d.0.0/16", g.r.IntN(256))
	case "mac":
		return fmt.Sprintf("02:00:00:00:00:%02x", g.r.IntN(256))
	case "uuid", "uuid4":
		return g.uuid(4)
	case "uuid3":
		return g.uuid(3)
	case "uuid5":
		return g.uuid(5)
	case "isbn", "isbn10":
		return "0306406152"
	case "isbn13":
		return "9780306406157"
	case "creditcard":
		return "4111111111111111"
	case "ssn":
		return "123-45-6789"
	case "hexcolor":
		return fmt.Sprintf("#%06x", g.r.IntN(1<<24))
	case "rgbcolor":
		return fmt.Sprintf("rgb(%d,%d,%d)", g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
	case "byte":
		b := make([]byte, 1+g.r.IntN(12))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return base64.StdEncoding.EncodeToString(b)
	case "date":
		return fmt.Sprintf("2024-%02d-%02d", 1+g.r.IntN(12), 1+g.r.IntN(28))
	case "duration":
		return fmt.Sprintf("%ds", n)
	case "datetime":
		return fmt.Sprintf("2024-%02d-%02dT%02d:%02d:%02dZ", 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60))
	case "k8sshortname":
		return g.word(1, 12)
	case "k8slongname":
		return g.word(1, 8) + "." + g.word(1, 8)
	}
	return ""
}

func (g *generator) uuid(version int) string {
	return fmt.Sprintf("%08x-%04x-%d%03x-%x%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), version, g.r.IntN(1<<12),
		8+g.r.IntN(4), g.r.IntN(1<<12), g.r.Uint64()&(1<<48-1))
}

// bounds is the range integers and numbers are drawn from: [0, 100]
// moved to overlap the schema's bounds, and within its format's range.
func bounds(s *openapi3.Schema, integer bool) (lo, hi float64) {
	lo, hi = 0, 100
	if s.Format == "int32" {
		lo, hi = math.Max(lo, math.MinInt32), math.Min(hi, math.MaxInt32)
	}
	step := 0.001
	if integer {
		step = 1
	}
	if s.Min != nil {
		min := *s.Min
		if s.ExclusiveMin.IsTrue() || s.ExclusiveMin.Value != nil {
			if s.ExclusiveMin.Value != nil {
				min = *s.ExclusiveMin.Value
			}
			min += step
		}
		if min > lo {
			lo, hi = min, math.Max(hi, min+100)
		}
	}
	if s.Max != nil {
		max := *s.Max
		if s.ExclusiveMax.IsTrue() || s.ExclusiveMax.Value != nil {
			if s.ExclusiveMax.Value != nil {
				max = *s.ExclusiveMax.Value
			}
			max -= step
		}
		if max < hi {
			hi = max
			if lo > hi || (s.Min == nil && hi-lo > 100) {
				lo = hi - 100
			}
		}
	}
	return lo, hi
}

func (g *generator) integer(s *openapi3.Schema) int64 {
	lo, hi := bounds(s, true)
	l, h := int64(math.Ceil(lo)), int64(math.Floor(hi))
	if s.MultipleOf != nil && *s.MultipleOf >= 1 && *s.MultipleOf == math.Trunc(*s.MultipleOf) {
		m := int64(*s.MultipleOf)
		kl, kh := ceilDiv(l, m), floorDiv(h, m)
		if kh < kl {
			return kl * m
		}
		return (kl + g.r.Int64N(kh-kl+1)) * m
	}
	if h < l {
		return l
	}
	return l + g.r.Int64N(h-l+1)
}

func ceilDiv(a, b int64) int64  { return -floorDiv(-a, b) }
func floorDiv(a, b int64) int64 { return int64(math.Floor(float64(a) / float64(b))) }

func (g *generator) number(s *openapi3.Schema) float64 {
	lo, hi := bounds(s, false)
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		m := *s.MultipleOf
		kl, kh := math.Ceil(lo/m), math.Floor(hi/m)
		if kh < kl {
			return kl * m
		}
		return (kl + float64(g.r.IntN(int(math.Min(kh-kl, 1000))+1))) * m
	}
	if hi < lo {
		return lo
	}
	// Two decimals, so the value survives JSON and is easy to read.
	v := math.Round((lo+g.r.Float64()*(hi-lo))*100) / 100
	return math.Min(math.Max(v, lo), hi)
}
