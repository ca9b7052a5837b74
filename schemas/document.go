package schemas

import (
	"bytes"
	"context"

	"github.com/getkin/kin-openapi/openapi3"
)

// specdExt is the top-level extension naming the document's group.
const specdExt = "x-specd"

// fileDecl is what one schema file declares: a group version and its
// resources.
type fileDecl struct {
	file  string
	group string // "" for the core group, or when missing or invalid
	// hasGroup is true when group is valid: a group name, or "" for the
	// core group, which only built-in files may declare.
	hasGroup bool
	version  string // "" when missing or invalid
	// allowBreaking is x-specd.allowBreaking: specd serve may apply
	// breaking changes to this file's group version on reload.
	allowBreaking bool
	// apiService is x-specd.apiService: the priorities of the group
	// version's APIService when specd serves aggregated.
	apiService APIServicePriority
	resources  []*resourceDecl
	// groupAt is the pointer of the group: /x-specd/group in a specd
	// file, /spec/group in a CRD.
	groupAt string
	// crd is set when the group version is one version of a CRD.
	crd *crdOrigin
	// side is set for a file of conversion rules for a CRD: it declares
	// no group version.
	side *sideRules
	// terminating and installing are set when its resources are
	// (Declarations.MarkTerminating, MarkInstalling): a load reads them
	// of every declaration, and here without a visit of each resource.
	terminating, installing bool
}

// parseFile loads one OpenAPI document, whose content has digest
// (fileDigest), and reads its group, version and resources. It returns
// nil when the file cannot be used at all. A built-in file may go beyond
// the CRD limits kube's own kinds exceed (selectable fields).
func parseFile(file, digest string, data []byte, builtin bool, probs *problems) *fileDecl {
	if len(bytes.TrimSpace(data)) == 0 {
		probs.add(file, "", "the file is empty")
		return nil
	}
	if line := secondYAMLDocument(data); line > 0 {
		probs.add(file, "", "line %d: a schema file holds one YAML document; put each group version in its own file", line)
		return nil
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		repaired := reportLoadError(file, data, err, probs)
		if repaired == nil {
			return nil
		}
		// The wrong values are reported; check the rest of the file.
		if doc, err = loader.LoadFromData(repaired); err != nil {
			return nil
		}
	}
	fd := &fileDecl{file: file, groupAt: ptr("", specdExt, "group")}
	validOpenAPI := checkDocument(file, doc, probs)
	d := decoder{file: file, digest: digest, builtin: builtin, probs: probs}
	fd.group, fd.hasGroup, fd.allowBreaking = decodeGroup(d, doc)
	fd.apiService = decodeAPIService(d, doc)
	fd.version = decodeVersion(d, doc)
	fd.resources = decodeResources(d, doc, validOpenAPI)
	return fd
}

// separator is a "---" line of a YAML stream, which ends one document
// and starts the next: its offsets in the stream (end at its newline, or
// the stream's end) and its line number, from 1.
type separator struct{ start, end, line int }

// docSeparators are the "---" lines of data: "---" alone, or followed by
// a blank and anything (a comment, "--- !tag"), as YAML writes them.
// A line scan, where a multi-line regexp cost a tenth of a CRD file's
// load.
func docSeparators(data []byte) []separator {
	var out []separator
	for start, line := 0, 1; start < len(data); line++ {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		if isDocSeparator(data[start:end]) {
			out = append(out, separator{start: start, end: end, line: line})
		}
		start = end + 1
	}
	return out
}

func isDocSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	return ok && (len(rest) == 0 || string(rest) == "\r" || rest[0] == ' ' || rest[0] == '\t')
}

// secondYAMLDocument returns the line of a "---" that starts a second YAML
// document, or 0. A "---" before any content only starts the first one.
func secondYAMLDocument(data []byte) int {
	for _, sep := range docSeparators(data) {
		if hasContent(data[:sep.start]) {
			return sep.line
		}
	}
	return 0
}

// hasContent reports whether YAML text has anything but blank lines,
// comments and a leading "---".
func hasContent(text []byte) bool {
	for _, line := range bytes.Split(text, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("%")) {
			continue
		}
		return true
	}
	return false
}

// checkDocument runs the OpenAPI document's own validation and reports its
// problems; it reports whether the components are valid.
func checkDocument(file string, doc *openapi3.T, probs *problems) bool {
	if doc.OpenAPI == "" {
		probs.add(file, "/openapi", "openapi is required: the OpenAPI version of the document, 3.0.0 to 3.0.4")
		return false
	}
	if !doc.IsOpenAPI30() {
		probs.add(file, "/openapi", "openapi %q: specd reads OpenAPI 3.0 documents (3.0.0 to 3.0.4)", doc.OpenAPI)
		return false
	}
	if doc.Paths == nil {
		// specd generates the paths; a schema file need not have any.
		doc.Paths = openapi3.NewPaths()
	}
	err := doc.Validate(context.Background(), validationOptions(true)...)
	if err == nil {
		return true
	}
	componentsOK := true
	for _, l := range locateValidationErrors(doc, err) {
		probs.add(file, l.pointer, "%s", l.message)
		if l.components {
			componentsOK = false
		}
	}
	return componentsOK
}

// validationOptions are the options of the document validation.
// Examples are documentation and are not checked.
func validationOptions(multi bool) []openapi3.ValidationOption {
	opts := []openapi3.ValidationOption{openapi3.DisableExamplesValidation()}
	if multi {
		opts = append(opts, openapi3.EnableMultiError())
	}
	return opts
}

// decodeGroup reads x-specd. A group of "" is the core group: ok here,
// and refused later unless the file is built in (builtinSet.refuses).
func decodeGroup(d decoder, doc *openapi3.T) (group string, ok, allowBreaking bool) {
	v, present := doc.Extensions[specdExt]
	if !present {
		d.probs.add(d.file, "", "missing %s: {group: ...}, the API group of this document", specdExt)
		return "", false, false
	}
	m, ok := d.object(v, ptr("", specdExt), "group", "allowBreaking", "apiService")
	if !ok {
		return "", false, false
	}
	if b := d.boolean(m, "allowBreaking", ptr("", specdExt)); b != nil {
		allowBreaking = *b
	}
	at := ptr("", specdExt, "group")
	group, ok = d.str(m, "group", ptr("", specdExt))
	if _, present := m["group"]; !present {
		d.probs.add(d.file, at, "group is required")
	}
	if !ok {
		return "", false, allowBreaking
	}
	if errs := groupErrors(group); len(errs) > 0 {
		for _, e := range errs {
			d.probs.add(d.file, at, "group %q: %s", group, e)
		}
		return "", false, allowBreaking
	}
	return group, true, allowBreaking
}

// decodeAPIService reads x-specd.apiService: groupPriorityMinimum (1 to
// 20000) and versionPriority (1 to 1000), as kube validates an
// APIService's; an absent one is 0, the default.
func decodeAPIService(d decoder, doc *openapi3.T) APIServicePriority {
	ext, _ := doc.Extensions[specdExt].(map[string]any)
	v, present := ext["apiService"]
	if !present {
		return APIServicePriority{}
	}
	at := ptr("", specdExt, "apiService")
	m, ok := d.object(v, at, "groupPriorityMinimum", "versionPriority")
	if !ok {
		return APIServicePriority{}
	}
	return APIServicePriority{
		GroupPriorityMinimum: priority(d, m, "groupPriorityMinimum", at, 20000),
		VersionPriority:      priority(d, m, "versionPriority", at, 1000),
	}
}

// priority reads an optional priority of 1 to limit.
func priority(d decoder, m map[string]any, key, at string, limit int32) int32 {
	v := d.int32(m, key, at)
	if f, isNumber := number(m[key]); isNumber && f == float64(v) && (v < 1 || v > limit) {
		d.probs.add(d.file, ptr(at, key), "must be 1 to %d, not %d", limit, v)
		return 0
	}
	return v
}

func decodeVersion(d decoder, doc *openapi3.T) string {
	if doc.Info == nil || doc.Info.Version == "" {
		return "" // reported by the OpenAPI validation
	}
	if errs := versionErrors(doc.Info.Version); len(errs) > 0 {
		for _, e := range errs {
			d.probs.add(d.file, "/info/version", "version %q: %s", doc.Info.Version, e)
		}
		return ""
	}
	return doc.Info.Version
}

// decodeResources reads every components schema carrying x-specd-resource,
// in name order, and compiles its schema when the document is valid.
func decodeResources(d decoder, doc *openapi3.T, compile bool) []*resourceDecl {
	var out []*resourceDecl
	declared := 0
	var schemas openapi3.Schemas
	if doc.Components != nil {
		schemas = doc.Components.Schemas
	}
	for _, name := range sortedKeys(schemas) {
		ref := schemas[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		ext, ok := ref.Value.Extensions[resourceExt]
		if !ok {
			checkStrayHooks(d, name, ref.Value)
			continue
		}
		declared++
		r := decodeResource(d, name, ref.Value, ext)
		if r == nil {
			continue
		}
		if compile {
			r.rv.Schema = compileSchema(d, r.pointer, r.rv.OpenAPI)
		}
		out = append(out, r)
	}
	if declared == 0 {
		d.probs.add(d.file, "/components/schemas", "declares no resource: no schema carries %s", resourceExt)
	}
	return out
}
