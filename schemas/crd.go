package schemas

import (
	"strings"
)

// The annotations specd reads on a CustomResourceDefinition.
const (
	// ConversionAnnotation holds specd conversion rules for the CRD's
	// versions (YAML or JSON: version -> list of rules), used instead of
	// a conversion webhook.
	ConversionAnnotation = "specd.io/conversion"
	// AllowBreakingAnnotation "true" lets a reload (or an update through
	// the API) apply a change to the CRD that breaks its clients or stored
	// objects, as x-specd.allowBreaking does for a specd file.
	AllowBreakingAnnotation = "specd.io/allow-breaking"
)

// crdOrigin is the CustomResourceDefinition a declaration comes from.
type crdOrigin struct {
	name string // metadata.name
	file string
	// webhook is the pointer of conversion.strategy when it is Webhook:
	// the CRD loads only if specd rules replace the webhook.
	webhook string
	// hasRules: specd rules are given for some version, in the annotation
	// or a side file.
	hasRules bool
}

// crdSpecFields are the fields of a CustomResourceDefinition's spec.
var crdSpecFields = []string{"group", "names", "scope", "versions", "conversion", "preserveUnknownFields"}

var crdNameFields = []string{"plural", "singular", "kind", "listKind", "shortNames", "categories"}

var crdVersionFields = []string{
	"name", "served", "storage", "deprecated", "deprecationWarning", "schema",
	"subresources", "additionalPrinterColumns", "selectableFields",
}

// crdDecl is what the spec of one CRD says for all its versions.
type crdDecl struct {
	origin     *crdOrigin
	group      string
	groupOK    bool
	names      *resourceDecl // names and scope, copied into every version
	kindOK     bool          // names.kind is given and valid
	annotation map[string]any
	allowBreak bool
}

// parseCRD reads a CustomResourceDefinition: one fileDecl per version.
func parseCRD(d decoder, m map[string]any) []*fileDecl {
	d.object(m, "", "apiVersion", "kind", "metadata", "spec", "status")
	c := &crdDecl{origin: &crdOrigin{file: d.file}}
	c.readMetadata(d, m["metadata"])
	spec, ok := d.object(m["spec"], "/spec", crdSpecFields...)
	if !ok {
		return nil
	}
	c.readGroup(d, spec)
	c.readNames(d, spec)
	c.readConversion(d, spec)
	if b := d.boolean(spec, "preserveUnknownFields", "/spec"); b != nil && *b {
		d.probs.add(d.file, "/spec/preserveUnknownFields", "must be false in %s; set x-kubernetes-preserve-unknown-fields: true in the version's schema instead", crdAPIVersion)
	}
	if want := c.names.plural + "." + c.group; c.origin.name != want && c.names.plural != "" {
		d.probs.add(d.file, "/metadata/name", "name %q: must be spec.names.plural+\".\"+spec.group (%s)", c.origin.name, want)
	}
	return c.readVersions(d, spec)
}

func (c *crdDecl) readMetadata(d decoder, v any) {
	md, ok := v.(map[string]any)
	if !ok {
		d.probs.add(d.file, "/metadata", "metadata is required: an object with the CRD's name")
		return
	}
	c.origin.name, _ = d.str(md, "name", "/metadata")
	if c.origin.name == "" {
		d.probs.add(d.file, "/metadata/name", "name is required: <plural>.<group>")
	}
	ann, ok := md["annotations"].(map[string]any)
	if !ok {
		return
	}
	c.annotation = ann
	if s, ok := ann[AllowBreakingAnnotation].(string); ok {
		c.allowBreak = s == "true"
	}
}

func (c *crdDecl) readGroup(d decoder, spec map[string]any) {
	g, ok := d.str(spec, "group", "/spec")
	switch {
	case !ok && spec["group"] == nil:
		d.probs.add(d.file, "/spec/group", "group is required")
	case ok && g == "":
		d.probs.add(d.file, "/spec/group", "group must not be empty: the core group is kube's own")
	case ok:
		errs := groupErrors(g)
		for _, e := range errs {
			d.probs.add(d.file, "/spec/group", "group %q: %s", g, e)
		}
		c.group, c.groupOK = g, len(errs) == 0
	}
}

// readNames reads spec.names and spec.scope, checked as kube-apiserver
// checks them, into a resourceDecl every version copies.
func (c *crdDecl) readNames(d decoder, spec map[string]any) {
	r := &resourceDecl{file: d.file, ext: "/spec/names", given: map[string]bool{"kind": true, "plural": true}, crd: c.origin,
		nameValidation: DNSSubdomainNames}
	r.fieldAt = map[string]string{"scope": "/spec/scope"}
	for _, f := range crdNameFields {
		r.fieldAt[f] = ptr("/spec/names", f)
	}
	c.names = r
	names, ok := d.object(spec["names"], "/spec/names", crdNameFields...)
	if !ok {
		return
	}
	r.kind, _ = d.str(names, "kind", r.ext)
	r.plural, _ = d.str(names, "plural", r.ext)
	r.singular, _ = d.str(names, "singular", r.ext)
	if r.singular == "" {
		r.singular = strings.ToLower(r.kind)
	}
	r.listKind, _ = d.str(names, "listKind", r.ext)
	for field, v := range map[string]string{"kind": r.kind, "plural": r.plural} {
		if v == "" {
			d.probs.add(d.file, r.at(field), "%s is required", field)
		}
	}
	c.kindOK = r.kind != "" && r.check(d, "kind", r.kind, crdKindErrors)
	if c.kindOK && r.listKind != "" {
		r.check(d, "listKind", r.listKind, crdKindErrors)
	}
	if r.plural != "" {
		r.check(d, "plural", r.plural, labelErrors)
	}
	if r.singular != "" {
		r.check(d, "singular", r.singular, labelErrors)
	}
	r.shortNames = d.strs(names, "shortNames", r.ext)
	r.categories = d.strs(names, "categories", r.ext)
	r.checkList(d, "shortNames", r.shortNames)
	r.checkList(d, "categories", r.categories)
	c.readScope(d, spec)
}

func (c *crdDecl) readScope(d decoder, spec map[string]any) {
	s, ok := d.str(spec, "scope", "/spec")
	switch {
	case !ok && spec["scope"] == nil:
		d.probs.add(d.file, "/spec/scope", "scope is required: Namespaced or Cluster")
	case Scope(s) == Namespaced || Scope(s) == Cluster:
		c.names.scope = Scope(s)
	case ok:
		d.probs.add(d.file, "/spec/scope", "scope %q: must be Namespaced or Cluster", s)
	}
}

// readConversion reads spec.conversion: None converts by changing the
// apiVersion alone (specd's rule-less conversion); Webhook needs specd
// rules instead, checked once the side files are known (assemble).
func (c *crdDecl) readConversion(d decoder, spec map[string]any) {
	conv, ok := spec["conversion"].(map[string]any)
	if !ok {
		if spec["conversion"] != nil {
			d.probs.add(d.file, "/spec/conversion", "must be an object, not %s", jsonType(spec["conversion"]))
		}
		return
	}
	d.object(conv, "/spec/conversion", "strategy", "webhook")
	strategy, _ := d.str(conv, "strategy", "/spec/conversion")
	switch strategy {
	case "", "None":
	case "Webhook":
		c.origin.webhook = "/spec/conversion/strategy"
	default:
		d.probs.add(d.file, "/spec/conversion/strategy", "strategy %q: must be None or Webhook", strategy)
	}
}

// readVersions reads spec.versions, one fileDecl each.
func (c *crdDecl) readVersions(d decoder, spec map[string]any) []*fileDecl {
	list := d.list(spec, "versions", "/spec")
	if len(list) == 0 {
		d.probs.add(d.file, "/spec/versions", "versions must have at least one version")
		return nil
	}
	rules := c.annotationRules(d)
	var out []*fileDecl
	seen := map[string]bool{}
	for i, v := range list {
		fd := c.readVersion(d, ptr("/spec/versions", index(i)), v)
		if fd == nil {
			continue
		}
		if seen[fd.version] {
			d.probs.add(d.file, ptr("/spec/versions", index(i), "name"), "version %q is listed twice", fd.version)
			continue
		}
		seen[fd.version] = true
		if r, ok := rules[fd.version]; ok {
			fd.resources[0].setRules(r)
			delete(rules, fd.version)
		}
		out = append(out, fd)
	}
	for _, v := range sortedKeys(rules) {
		d.probs.add(d.file, rules[v].pointer, "conversion rules for version %q, which the CRD does not declare", v)
	}
	return out
}

// readVersion reads one entry of spec.versions.
func (c *crdDecl) readVersion(d decoder, at string, v any) *fileDecl {
	vm, ok := d.object(v, at, crdVersionFields...)
	if !ok {
		return nil
	}
	name, _ := d.str(vm, "name", at)
	if errs := versionErrors(name); len(errs) > 0 {
		for _, e := range errs {
			d.probs.add(d.file, ptr(at, "name"), "version %q: %s", name, e)
		}
		return nil
	}
	r := c.versionDecl(at, vm)
	fd := &fileDecl{file: d.file, group: c.group, hasGroup: c.groupOK, groupAt: "/spec/group", version: name, crd: c.origin}
	r.rv = &ResourceVersion{File: d.file, FileDigest: d.digest, Pointer: ptr(at, "schema", "openAPIV3Schema"), declAt: at, crd: true}
	r.pointer = r.rv.Pointer
	r.decodeVersioning(d, vm)
	// served and storage are required booleans in a CRD: absent is false.
	r.served = &[]bool{r.served != nil && *r.served}[0]
	if r.storage = d.boolean(vm, "storage", at); r.storage == nil {
		r.storage = new(bool)
	}
	schemaOK := readVersionSchema(d, r, at, vm)
	r.rv.PrinterColumns = decodePrinterColumns(d, d.list(vm, "additionalPrinterColumns", at), ptr(at, "additionalPrinterColumns"))
	if !c.kindOK || !schemaOK {
		return nil
	}
	fd.resources = []*resourceDecl{r}
	return fd
}

// readVersionSchema reads the schema of the version at at and what
// depends on it: subresources, selectable fields, the compiled schema.
// It reports whether the schema could be read at all.
func readVersionSchema(d decoder, r *resourceDecl, at string, vm map[string]any) bool {
	s := readCRDSchema(d, at, vm)
	r.rv.StatusSubresource = decodeSubresources(d, vm, at)
	if s == nil {
		return false
	}
	r.rv.OpenAPI = withoutSpecdExtensions(s)
	r.rv.Scale = decodeScale(d, vm, at, s)
	checkRoot(d, r.pointer, s, r.rv.StatusSubresource)
	r.rv.SelectableFields = decodeSelectableFields(d, d.list(vm, "selectableFields", at), ptr(at, "selectableFields"), s)
	r.rv.Schema = compileSchema(d, r.pointer, s)
	return true
}

// versionDecl is a copy of the CRD's names for the version at at.
func (c *crdDecl) versionDecl(at string, vm map[string]any) *resourceDecl {
	r := *c.names
	r.ext = at
	r.given = map[string]bool{"kind": true, "plural": true}
	for k := range vm {
		r.given[k] = true
	}
	r.fieldAt = make(map[string]string, len(c.names.fieldAt)+1)
	for k, v := range c.names.fieldAt {
		r.fieldAt[k] = v
	}
	r.allowBreaking = c.allowBreak
	return &r
}

func (r *resourceDecl) listKindOrDefault() string {
	if r.listKind != "" {
		return r.listKind
	}
	return r.kind + "List"
}

func (r *resourceDecl) crdName() string {
	if r.crd == nil {
		return ""
	}
	return r.crd.name
}

// declaredAt names where first is declared, for a problem in r: its
// pointer, with its file when that is another.
func declaredAt(first, r *resourceDecl) string {
	if first.file == r.file {
		return first.pointer
	}
	return first.file + "#" + first.pointer
}

// dropForeign reports a kind that is declared in more than one place
// when one of them is a CRD: a CRD declares all versions of its kind, so
// another CRD or a specd file declaring it too is a conflict. Only the
// declarations of the first place are kept, so that the others' versions
// raise no further problems.
func dropForeign(group string, k *kindDecls, probs *problems) {
	first := k.decls[0]
	decls, gvs := k.decls[:1], k.gvs[:1]
	for i, r := range k.decls[1:] {
		if r.crd == nil && first.crd == nil || r.crd == first.crd {
			decls, gvs = append(decls, r), append(gvs, k.gvs[i+1])
			continue
		}
		probs.add(r.file, r.at("kind"), "%s.%s (kind %s) is declared by %s and by %s; declare it in one place",
			first.plural, group, k.kind, originName(first), originName(r))
	}
	k.decls, k.gvs = decls, gvs
}

func originName(r *resourceDecl) string {
	if r.crd != nil {
		return "CRD " + r.crd.name + " in " + r.file
	}
	return "the schema file " + r.file
}

// crdVersionFieldNames are the names of a CRD version's fields for the
// fields of x-specd-resource that differ.
var crdVersionFieldNames = map[string]string{"printerColumns": "additionalPrinterColumns"}

// crdFieldPointers place the fields of x-specd-resource a CRD holds
// outside its versions.
var crdFieldPointers = map[string]string{
	"kind": "/spec/names/kind", "plural": "/spec/names/plural", "singular": "/spec/names/singular",
	"shortNames": "/spec/names/shortNames", "categories": "/spec/names/categories", "scope": "/spec/scope",
}

// DeclarationPointer is the JSON pointer in File of a field of the
// version's declaration, named as in x-specd-resource ("scope",
// "printerColumns", "selectableFields", "subresources", ...), or of the
// declaration itself for "": x-specd-resource in a specd file,
// /spec/versions/<i> in a CRD, whose names and scope are under /spec.
func (rv *ResourceVersion) DeclarationPointer(field string) string {
	at := rv.declAt
	if at == "" {
		at = ptr(rv.Pointer, resourceExt)
	}
	if field == "" {
		return at
	}
	if !rv.crd {
		return ptr(at, field)
	}
	if p, ok := crdFieldPointers[field]; ok {
		return p
	}
	if name, ok := crdVersionFieldNames[field]; ok {
		field = name
	}
	return ptr(at, field)
}
