package converters

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// The rule kinds. Each maps a field of the spoke (from) to one of the hub
// (to) and back.
const (
	kindRename   = "rename"   // move a field, at any depth
	kindEnum     = "enum"     // move and map string values by a table
	kindToList   = "toList"   // spoke scalar -> first element of a hub list
	kindFromList = "fromList" // first element of a spoke list -> hub scalar
	kindSplit    = "split"    // spoke string -> hub list of strings
	kindJoin     = "join"     // spoke list of strings -> hub string
	kindNest     = "nest"     // spoke fields -> the same fields in a hub object
	kindFlatten  = "flatten"  // the fields of a spoke object -> hub fields
	kindConstant = "constant" // a field only one side has, usually this value
)

var ruleFields = map[string][]string{
	kindRename:   {"from", "to"},
	kindEnum:     {"from", "to", "values"},
	kindToList:   {"from", "to"},
	kindFromList: {"from", "to"},
	kindSplit:    {"from", "to", "separator"},
	kindJoin:     {"from", "to", "separator"},
	kindNest:     {"from", "to", "fields"},
	kindFlatten:  {"from", "to", "fields"},
	kindConstant: {"from", "to", "value"},
}

// Rules converts the objects of one resource between a spoke version and
// the hub (the storage version). Rules is immutable and safe for
// concurrent use.
type Rules struct {
	// spoke and hub name the two versions' entries in the bookkeeping
	// annotation: their versions, and the spoke's apiVersion when it is of
	// another group than the hub (a resource stored with another,
	// schemas.Resource.StoredWith), whose versions may have the same name.
	spoke, hub string
	// spokeAV and hubAV are their apiVersions.
	spokeAV, hubAV       string
	spokeShape, hubShape *shape
	steps                []*step
	// same: no rules and one shape, so only the bookkeeping may change.
	same bool
	// top is the top-level field (spec) every rule's paths are in, if any:
	// the steps then work on that field alone, which is faster.
	top    string
	topLoc *loc
	// skip: subtrees the walks need not enter.
	skip skipSet
	// batches are the steps in order, consecutive element steps of one
	// list together: they run in one pass over its elements.
	// batchesBack: the same, each batch in reverse order.
	batches, batchesBack [][]*step
}

func batch(steps []*step) (fwd, back [][]*step) {
	for _, s := range steps {
		if n := len(fwd); n > 0 && s.each != nil && fwd[n-1][0].each != nil && fwd[n-1][0].each.sameList(s.each) {
			fwd[n-1] = append(fwd[n-1], s)
			continue
		}
		fwd = append(fwd, []*step{s})
	}
	for _, b := range fwd {
		r := make([]*step, len(b))
		for i, s := range b {
			r[len(b)-1-i] = s
		}
		back = append(back, r)
	}
	return fwd, back
}

// commonTop is the first key of every step's paths, "" when they differ
// or a path is the key itself.
func commonTop(steps []*step) string {
	top := ""
	for _, s := range steps {
		for _, p := range []path{s.from, s.to} {
			if p == nil {
				continue
			}
			k, _ := p[0].(string)
			if len(p) < 2 || top != "" && k != top {
				return ""
			}
			top = k
		}
	}
	return top
}

func relLoc(p path) *loc {
	if p == nil {
		return nil
	}
	return newLoc(p[1:])
}

// compiler collects every problem in one rule list.
type compiler struct {
	spoke, hub *shape
	file       string
	probs      []schemas.Problem
}

func (c *compiler) addf(pointer, format string, args ...any) {
	c.probs = append(c.probs, schemas.Problem{File: c.file, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// Compile compiles the conversion rules of spoke, a non-storage version, to
// hub, its resource's storage version. rules is the decoded rule list (nil
// for none: every field maps to the same path), found in file at the JSON
// pointer pointer. It returns every problem found, each with file and the
// pointer of the rule; Rules is nil when there is any.
func Compile(spoke, hub *schemas.ResourceVersion, rules []any, file, pointer string) (*Rules, []schemas.Problem) {
	c := &compiler{spoke: newShape(spoke.OpenAPI), hub: newShape(hub.OpenAPI), file: file}
	r := &Rules{spoke: spoke.Version, hub: hub.Version, spokeShape: c.spoke, hubShape: c.hub,
		spokeAV: apiVersion(spoke.Resource.Group, spoke.Version), hubAV: apiVersion(hub.Resource.Group, hub.Version)}
	if spoke.Resource.Group != hub.Resource.Group {
		r.spoke = r.spokeAV
	}
	type ruleAt struct {
		steps []*step
		at    string
	}
	var all []ruleAt
	for i, raw := range rules {
		at := pointer + "/" + strconv.Itoa(i)
		steps := c.rule(raw, at)
		for _, s := range steps {
			s.at = at
		}
		r.steps = append(r.steps, steps...)
		all = append(all, ruleAt{steps, at})
	}
	// Conflicts between the paths the rules read and write.
	for i, a := range all {
		for j := i + 1; j < len(all); j++ {
			b := all[j]
			for _, x := range a.steps {
				for _, y := range b.steps {
					c.conflict(x, y, a.at, b.at)
				}
			}
		}
	}
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	c.planElements(r.steps)
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	r.skip = skippable(c.spoke, c.hub, r.steps)
	r.top = commonTop(r.steps)
	for _, s := range r.steps {
		if s.each != nil && r.top != "" && !s.each.below(r.top) {
			r.top = ""
		}
	}
	r.topLoc = newLoc(path{r.top})
	for _, s := range r.steps {
		if s.each != nil {
			continue
		}
		s.fromL, s.toL = newLoc(s.from), newLoc(s.to)
		if r.top != "" {
			s.fromR, s.toR = relLoc(s.from), relLoc(s.to)
		}
	}
	r.batches, r.batchesBack = batch(r.steps)
	r.same = len(r.steps) == 0 && shapesEqual(c.spoke, c.hub)
	return r, nil
}

func overlap(p, q path) bool { return p != nil && q != nil && (p.hasPrefix(q) || q.hasPrefix(p)) }

// conflict checks step x (of an earlier rule at ax) against y (at by).
// A rule that moves the list another rule goes into does not conflict
// with it.
func (c *compiler) conflict(x, y *step, ax, by string) {
	if movesList(x, y) || movesList(y, x) {
		return
	}
	switch {
	case overlap(x.to, y.to):
		c.addf(by, "two rules write hub field %s (the other is %s)", y.to, ax)
	case overlap(x.from, y.from):
		c.addf(by, "two rules read spoke field %s (the other is %s)", y.from, ax)
	case overlap(x.to, y.from):
		c.addf(by, "reads %s, which the earlier rule %s writes: list this rule first", y.from, ax)
	}
}

// rule compiles one rule: a map with one key, the rule kind.
func (c *compiler) rule(raw any, at string) []*step {
	m, ok := raw.(map[string]any)
	if !ok || len(m) != 1 {
		c.addf(at, "a rule is a map with exactly one key, its kind (one of %s)", kindList())
		return nil
	}
	var kind string
	var body any
	for kind, body = range m {
	}
	at += "/" + schemas.EscapeToken(kind)
	fields, known := ruleFields[kind]
	if !known {
		c.addf(at, "unknown rule kind %q (one of %s)", kind, kindList())
		return nil
	}
	args, ok := body.(map[string]any)
	if !ok {
		c.addf(at, "%s: must be a map", kind)
		return nil
	}
	for k := range args {
		if !contains(fields, k) {
			c.addf(at+"/"+schemas.EscapeToken(k), "unknown field %q of %s (allowed: %s)", k, kind, strings.Join(fields, ", "))
		}
	}
	a := ruleArgs{c: c, kind: kind, at: at, args: args}
	return a.compile()
}

func kindList() string {
	kinds := make([]string, 0, len(ruleFields))
	for k := range ruleFields {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return strings.Join(kinds, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func stepKey(kind string, from, to path) string {
	return kind + ":" + from.String() + ">" + to.String()
}

func constantJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

func itoa(i int) string { return strconv.Itoa(i) }

func sortStrings(s []string) { sort.Strings(s) }
