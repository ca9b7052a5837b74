package rbac

import (
	"slices"
	"strconv"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// ruleSet is a set of PolicyRules by their ruleKey, so that joining the
// rules of many roles (the aggregated roles list every group of the
// schemas) costs one look-up per rule instead of a comparison with each
// rule kept so far.
type ruleSet map[string]struct{}

// newRuleSet holds the rules of rules.
func newRuleSet(rules []rbacv1.PolicyRule) ruleSet {
	s := make(ruleSet, len(rules))
	for _, r := range rules {
		s[ruleKey(r)] = struct{}{}
	}
	return s
}

// addMissingRules appends to dst each rule of src it does not hold yet.
func addMissingRules(dst, src []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	return newRuleSet(dst).addMissing(dst, src)
}

// addMissing appends to dst each rule of src that s does not hold, and
// adds it to s; s holds the rules of dst.
func (s ruleSet) addMissing(dst, src []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	for _, r := range src {
		k := ruleKey(r)
		if _, ok := s[k]; !ok {
			s[k] = struct{}{}
			dst = append(dst, r)
		}
	}
	return dst
}

// ruleKey is equal for two rules exactly when equality.Semantic.DeepEqual
// finds them equal: the same strings in the same order in each list, a
// nil list the same as an empty one. Each string is prefixed with its
// length, so no string can pass for another's end.
func ruleKey(r rbacv1.PolicyRule) string {
	var b strings.Builder
	for _, l := range [...][]string{r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs} {
		b.WriteString(strconv.Itoa(len(l)))
		b.WriteByte(';')
		for _, s := range l {
			b.WriteString(strconv.Itoa(len(s)))
			b.WriteByte(':')
			b.WriteString(s)
		}
	}
	return b.String()
}

// rulesEqual is equality.Semantic.DeepEqual of two rule lists without
// reflection: the aggregated roles compare thousands of rules on each
// pass.
func rulesEqual(a, b []rbacv1.PolicyRule) bool {
	return slices.EqualFunc(a, b, func(x, y rbacv1.PolicyRule) bool {
		return slices.Equal(x.Verbs, y.Verbs) && slices.Equal(x.APIGroups, y.APIGroups) &&
			slices.Equal(x.Resources, y.Resources) && slices.Equal(x.ResourceNames, y.ResourceNames) &&
			slices.Equal(x.NonResourceURLs, y.NonResourceURLs)
	})
}
