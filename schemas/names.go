package schemas

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

var (
	versionRE    = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	upperCamelRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// groupErrors checks an API group name the way a CRD's spec.group is
// checked: a DNS subdomain with at least one dot, or "" (the core group,
// which only built-in files may declare: see builtinSet.refuses).
func groupErrors(g string) []string {
	if g == "" {
		return nil
	}
	errs := validation.IsDNS1123Subdomain(g)
	if !strings.Contains(g, ".") {
		errs = append(errs, "should be a domain with at least one dot")
	}
	return errs
}

func versionErrors(v string) []string {
	if !versionRE.MatchString(v) {
		return []string{`must be a Kubernetes API version such as v1, v1beta1 or v2alpha1 (` + versionRE.String() + `)`}
	}
	return nil
}

// kindErrors is the rule of specd's schema format: UpperCamel ASCII, and
// a CRD's kind (crdKindErrors).
func kindErrors(k string) []string {
	if !upperCamelRE.MatchString(k) {
		return []string{"must be UpperCamelCase: an ASCII capital letter, then letters and digits"}
	}
	return crdKindErrors(k)
}

// crdKindErrors is kube's rule for a CRD's names.kind and listKind:
// lowercase, a DNS-1035 label. kube takes any case ("foo", "Foo-bar"),
// and so does specd for a CRD, whether a file or written through the API.
func crdKindErrors(k string) []string {
	if errs := validation.IsDNS1035Label(strings.ToLower(k)); len(errs) > 0 {
		return []string{"may have mixed case, but should otherwise match: " + strings.Join(errs, ",")}
	}
	return nil
}

// labelErrors is the CRD rule for plural, singular, shortNames and
// categories: a DNS-1035 label (lowercase, starts with a letter, <= 63).
func labelErrors(s string) []string { return validation.IsDNS1035Label(s) }

// defaultPlural is the plural used when a resource names none: the
// lowercase kind with the English rule most kinds follow (Policy ->
// policies, Gateway -> gateways, Class -> classes, Box -> boxes,
// Widget -> widgets). Set plural explicitly for irregular nouns.
func defaultPlural(kind string) string {
	s := strings.ToLower(kind)
	switch {
	case s == "":
		return s
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "z"),
		strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}
