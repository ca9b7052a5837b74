package schemas

import (
	"fmt"
	"sort"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/version"
)

// maxDeprecationWarning is kube-apiserver's limit on a CRD version's
// deprecationWarning.
const maxDeprecationWarning = 256

// decodeVersioning reads what x-specd-resource says about the version
// itself: served, deprecated, deprecationWarning and conversion.
func (r *resourceDecl) decodeVersioning(d decoder, m map[string]any) {
	r.served = d.boolean(m, "served", r.ext)
	if b := d.boolean(m, "deprecated", r.ext); b != nil {
		r.deprecated = *b
	}
	if w, ok := d.str(m, "deprecationWarning", r.ext); ok {
		r.warning = &w
		at := ptr(r.ext, "deprecationWarning")
		switch {
		case !r.deprecated:
			d.probs.add(d.file, at, "deprecationWarning can only be set on a version with deprecated: true")
		case len(w) > maxDeprecationWarning:
			d.probs.add(d.file, at, "deprecationWarning is %d bytes long: at most %d", len(w), maxDeprecationWarning)
		case !printable(w):
			d.probs.add(d.file, at, "deprecationWarning must only contain printable UTF-8 characters")
		}
	}
	r.decodeConversion(d, m)
}

// decodeConversion reads conversion: {rules: [...]}. The rules are kept as
// decoded JSON; package converters compiles them.
func (r *resourceDecl) decodeConversion(d decoder, m map[string]any) {
	v, present := m["conversion"]
	if !present {
		return
	}
	r.conversion = true
	at := ptr(r.ext, "conversion")
	c, ok := d.object(v, at, "rules")
	if !ok {
		return
	}
	if _, present := c["rules"]; !present {
		d.probs.add(d.file, ptr(at, "rules"), "rules is required: the list of rules that map this version to the storage version")
		return
	}
	rules := d.list(c, "rules", at)
	if rules == nil {
		return // reported, unless an explicit null (reported by list too)
	}
	r.rv.ConversionRules = rules
	r.rv.ConversionPointer = ptr(at, "rules")
}

// printable reports whether s is valid UTF-8 without control characters,
// as kube-apiserver requires of a deprecationWarning.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}

// checkConversion reports a conversion block on the storage version: the
// storage version is the hub that every other version converts to.
func checkConversion(r *resourceDecl, probs *problems) {
	if r.conversion && r.rv.Storage {
		probs.add(r.conversionFile(), r.at("conversion"),
			"the storage version %s is the hub of kind %s: conversion rules belong on the other versions, which map to it",
			r.rv.Version, r.kind)
	}
}

// setVersioning fills in Served, Deprecated and DeprecationWarning of every
// version of res, once all of them are known.
func setVersioning(res *Resource, decls []*resourceDecl) {
	for _, r := range decls {
		r.rv.Hidden = r.served != nil && !*r.served
		r.rv.Deprecated = r.deprecated
	}
	for _, r := range decls {
		switch {
		case !r.deprecated:
		case r.warning != nil:
			r.rv.DeprecationWarning = *r.warning
		default:
			r.rv.defaultWarning = true
		}
	}
	setDefaultWarnings(res)
}

// setDefaultWarnings sets kube's default message on the deprecated
// versions without a deprecationWarning of their own; it depends on which
// versions are served.
func setDefaultWarnings(res *Resource) {
	for _, rv := range res.Versions {
		if rv.defaultWarning {
			rv.DeprecationWarning = defaultDeprecationWarning(res, rv.Version)
		}
	}
}

// defaultDeprecationWarning is kube-apiserver's message for a deprecated
// CRD version without a deprecationWarning: "<group>/<version> <Kind> is
// deprecated", naming the highest newer version served and not deprecated
// as the one to use, when there is one.
func defaultDeprecationWarning(res *Resource, deprecated string) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", res.Group, deprecated, res.Kind)
	var newer []string
	for _, rv := range res.Versions {
		if rv.Served() && !rv.Deprecated && version.CompareKubeAwareVersionStrings(deprecated, rv.Version) < 0 {
			newer = append(newer, rv.Version)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0
	})
	return msg + fmt.Sprintf("; use %s/%s %s", res.Group, newer[0], res.Kind)
}
