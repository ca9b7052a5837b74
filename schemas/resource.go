package schemas

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// resourceExt marks a components schema as a resource.
const resourceExt = "x-specd-resource"

var resourceFields = []string{
	"kind", "plural", "singular", "shortNames", "categories", "scope", "nameValidation",
	"storage", "storageResource", "served", "deprecated", "deprecationWarning", "conversion",
	"subresources", "printerColumns", "selectableFields", "unconditionalUpdate", "generation", "verbs",
}

// resourceDecl is one x-specd-resource: a kind as one file declares it.
type resourceDecl struct {
	file    string
	pointer string // the schema: /components/schemas/<name>
	ext     string // pointer + /x-specd-resource
	given   map[string]bool

	kind, plural, singular string
	shortNames, categories []string
	verbs                  []string // nil: every verb
	scope                  Scope
	nameValidation         NameValidation
	storage                *bool
	storageResource        string // plural.group; "" for the kind's own storage
	storageResourceBad     bool   // reported: not a resource name
	served                 *bool
	deprecated             bool
	warning                *string // deprecationWarning as given
	conversion             bool    // a conversion block is given
	unconditionalUpdate    bool
	noGeneration           bool // generation: false
	allowBreaking          bool // a CRD's specd.io/allow-breaking
	terminating            bool // a CRD being deleted
	installing             bool // a CRD not yet Established
	rv                     *ResourceVersion
	// listKind is the CRD's names.listKind; "" is kind + "List".
	listKind string
	// crd is set when a CustomResourceDefinition declares the kind.
	crd *crdOrigin
	// origin is the parsed declaration this one is a copy of (clone),
	// nil for the parsed one; side is the side file whose rules the copy
	// took. Both tell a Loader what it may reuse (reuse.go).
	origin *resourceDecl
	side   *sideRules
	// fieldAt places fields outside x-specd-resource (a CRD's names are
	// under /spec/names, its scope at /spec/scope).
	fieldAt map[string]string
}

// conversionFile is where the version's conversion rules are written:
// its own file, or a CRD's side file of rules.
func (r *resourceDecl) conversionFile() string {
	if r.rv.ConversionFile != "" {
		return r.rv.ConversionFile
	}
	return r.file
}

// at is the pointer of a field of x-specd-resource, or of x-specd-resource
// itself when the field was defaulted.
func (r *resourceDecl) at(field string) string {
	if p, ok := r.fieldAt[field]; ok {
		return p
	}
	if r.given[field] {
		return ptr(r.ext, field)
	}
	return r.ext
}

// decodeResource reads the x-specd-resource of the components schema name.
// It returns nil when the kind is unusable, so that later checks do not
// repeat the problem.
func decodeResource(d decoder, name string, s *openapi3.Schema, ext any) *resourceDecl {
	r := &resourceDecl{file: d.file, pointer: ptr("/components/schemas", name), given: map[string]bool{}}
	r.ext = ptr(r.pointer, resourceExt)
	if ext == nil {
		ext = map[string]any{} // "x-specd-resource:" alone: every default
	}
	m, ok := d.object(ext, r.ext, resourceFields...)
	if !ok {
		return nil
	}
	for k := range m {
		r.given[k] = true
	}
	r.rv = &ResourceVersion{File: d.file, FileDigest: d.digest, Pointer: r.pointer, OpenAPI: withoutSpecdExtensions(s), declAt: r.ext}
	kindOK := r.decodeNames(d, m, name)
	r.decodeScope(d, m)
	r.decodeNameValidation(d, m)
	r.decodeVerbs(d, m)
	r.storage = d.boolean(m, "storage", r.ext)
	if u := d.boolean(m, "unconditionalUpdate", r.ext); u != nil {
		r.unconditionalUpdate = *u
	}
	if g := d.boolean(m, "generation", r.ext); g != nil {
		r.noGeneration = !*g
	}
	r.decodeStorageResource(d, m)
	r.decodeVersioning(d, m)
	r.rv.StatusSubresource = decodeSubresources(d, m, r.ext)
	r.rv.Scale = decodeScale(d, m, r.ext, s)
	checkRoot(d, r.pointer, s, r.rv.StatusSubresource)
	r.rv.PrinterColumns = decodePrinterColumns(d, d.list(m, "printerColumns", r.ext), ptr(r.ext, "printerColumns"))
	r.rv.SelectableFields = decodeSelectableFields(d, d.list(m, "selectableFields", r.ext), ptr(r.ext, "selectableFields"), s)
	r.rv.Hooks = decodeHooks(d, r.pointer, s)
	if !kindOK {
		return nil
	}
	return r
}

func (r *resourceDecl) decodeNames(d decoder, m map[string]any, name string) bool {
	kind, given := d.str(m, "kind", r.ext)
	if !given {
		kind = name
	}
	r.kind = kind
	kindOK := r.check(d, "kind", kind, kindErrors)
	if s, ok := d.str(m, "plural", r.ext); ok {
		r.plural = s
	} else {
		r.plural = defaultPlural(kind)
	}
	if s, ok := d.str(m, "singular", r.ext); ok {
		r.singular = s
	} else {
		r.singular = strings.ToLower(kind)
	}
	if kindOK {
		r.check(d, "plural", r.plural, labelErrors)
		r.check(d, "singular", r.singular, labelErrors)
	}
	r.shortNames = d.strs(m, "shortNames", r.ext)
	r.categories = d.strs(m, "categories", r.ext)
	r.checkList(d, "shortNames", r.shortNames)
	r.checkList(d, "categories", r.categories)
	return kindOK
}

func (r *resourceDecl) check(d decoder, field, value string, rule func(string) []string) bool {
	errs := rule(value)
	for _, e := range errs {
		if r.given[field] {
			d.probs.add(d.file, r.at(field), "%s %q: %s", field, value, e)
		} else {
			d.probs.add(d.file, r.at(field), "%s %q (the default from the schema name): %s", field, value, e)
		}
	}
	return len(errs) == 0
}

func (r *resourceDecl) checkList(d decoder, field string, values []string) {
	seen := map[string]bool{}
	for i, v := range values {
		for _, e := range labelErrors(v) {
			d.probs.add(d.file, ptr(r.at(field), index(i)), "%q: %s", v, e)
		}
		if seen[v] {
			d.probs.add(d.file, ptr(r.at(field), index(i)), "%q is listed twice", v)
		}
		seen[v] = true
	}
}

func (r *resourceDecl) decodeScope(d decoder, m map[string]any) {
	r.scope = Namespaced
	s, ok := d.str(m, "scope", r.ext)
	if !ok {
		return
	}
	switch Scope(s) {
	case Namespaced, Cluster:
		r.scope = Scope(s)
	default:
		d.probs.add(d.file, ptr(r.ext, "scope"), "scope %q: must be Namespaced or Cluster", s)
	}
}

func (r *resourceDecl) decodeNameValidation(d decoder, m map[string]any) {
	r.nameValidation = DNSSubdomainNames
	s, ok := d.str(m, "nameValidation", r.ext)
	if !ok {
		return
	}
	switch NameValidation(s) {
	case DNSSubdomainNames, PathSegmentNames:
		r.nameValidation = NameValidation(s)
	default:
		d.probs.add(d.file, ptr(r.ext, "nameValidation"), "nameValidation %q: must be %s or %s", s, DNSSubdomainNames, PathSegmentNames)
	}
}

// decodeSubresources reads {status: {}}; it reports whether status is on.
func decodeSubresources(d decoder, m map[string]any, ext string) bool {
	v, present := m["subresources"]
	if !present {
		return false
	}
	at := ptr(ext, "subresources")
	sub, ok := d.object(v, at, "status", "scale")
	if !ok {
		return false
	}
	st, present := sub["status"]
	if !present {
		return false
	}
	if _, ok := d.object(st, ptr(at, "status")); !ok {
		return false
	}
	return true
}

// Served reports whether any version of r is served; false for nil.
func (r *Resource) Served() bool {
	if r == nil {
		return false
	}
	for _, rv := range r.Versions {
		if rv.Served() {
			return true
		}
	}
	return false
}
