package schemas

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// A schema directory may hold, beside specd's own OpenAPI files, files of
// Kubernetes objects: apiextensions.k8s.io/v1 CustomResourceDefinitions,
// several to a file as controller-gen and Helm write them, and specd's
// ConversionRules for them. Each CRD version becomes the declaration a
// specd file would make for it, so both pass the same checks.

const (
	crdAPIVersion = "apiextensions.k8s.io/v1"
	crdKind       = "CustomResourceDefinition"
)

// kubeDoc is one document of a file of Kubernetes objects.
type kubeDoc struct {
	line  int // where the document starts in the file
	value any // decoded JSON; nil for an empty document
}

// parseSchemaFile parses a schema file: specd's OpenAPI document, or a
// file of Kubernetes objects (apiVersion and kind at the top of its first
// document, no openapi). A file that does not parse is left to the OpenAPI
// path, which reports why.
func parseSchemaFile(file, digest string, data []byte, builtin bool, probs *problems) []*fileDecl {
	if !builtin && !hasOpenAPIKey(data) {
		if docs, msg := splitKubeDocs(file, data); msg == "" && isKubeObjects(docs) {
			return parseKubeObjects(file, digest, docs, probs)
		}
	}
	if fd := parseFile(file, digest, data, builtin, probs); fd != nil {
		return []*fileDecl{fd}
	}
	return nil
}

// hasOpenAPIKey finds the top-level openapi key of a YAML OpenAPI
// document, so that specd files are not parsed twice. (A CRD cannot have
// it: its top-level keys are apiVersion, kind, metadata and spec, and
// nothing else starts at column 0.) JSON files are always parsed. A line
// scan: a multi-line regexp cost 7 % of a CRD file's load.
func hasOpenAPIKey(data []byte) bool {
	for line := range bytes.Lines(data) {
		if isOpenAPIKey(line) {
			return true
		}
	}
	return false
}

func isOpenAPIKey(line []byte) bool {
	for _, key := range []string{"openapi", `"openapi"`, "'openapi'"} {
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok {
			return bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte(":"))
		}
	}
	return false
}

func isKubeObjects(docs []kubeDoc) bool {
	for _, doc := range docs {
		m, ok := doc.value.(map[string]any)
		if !ok {
			continue
		}
		_, openapi := m["openapi"]
		_, kind := m["kind"]
		_, apiVersion := m["apiVersion"]
		return !openapi && (kind || apiVersion)
	}
	return false
}

// splitKubeDocs decodes the documents of a JSON file (one) or a YAML file
// (separated by "---" lines); on a syntax error it returns a message.
func splitKubeDocs(file string, data []byte) ([]kubeDoc, string) {
	if strings.EqualFold(path.Ext(file), ".json") {
		raw, msg := parseRaw(file, data)
		if msg != "" {
			return nil, msg
		}
		return []kubeDoc{{line: 1, value: raw}}, ""
	}
	var docs []kubeDoc
	start, line := 0, 1
	seps := docSeparators(data)
	for i := 0; i <= len(seps); i++ {
		end := len(data)
		if i < len(seps) {
			end = seps[i].start
		}
		chunk := data[start:end]
		if hasContent(chunk) {
			raw, msg := parseRaw(file, chunk)
			if msg != "" {
				return nil, fmt.Sprintf("document at line %d: %s", line, msg)
			}
			docs = append(docs, kubeDoc{line: line, value: raw})
		}
		if i < len(seps) {
			// The next document starts on the line after the "---".
			line, start = seps[i].line+1, seps[i].end
		}
	}
	return docs, ""
}

// parseKubeObjects reads the CRDs and conversion rules of a file of
// Kubernetes objects; each CRD version is one fileDecl.
func parseKubeObjects(file, digest string, docs []kubeDoc, probs *problems) []*fileDecl {
	docs = expandLists(docs)
	var out []*fileDecl
	for _, doc := range docs {
		if doc.value == nil {
			continue
		}
		docProbs := &problems{}
		out = append(out, parseKubeObject(file, documentDigest(digest, doc.value), doc.value, docProbs)...)
		for _, p := range docProbs.list {
			if len(docs) > 1 {
				p.Message = fmt.Sprintf("document at line %d: %s", doc.line, p.Message)
			}
			probs.list = append(probs.list, p)
		}
	}
	if len(out) == 0 && len(probs.list) == 0 {
		probs.add(file, "", "declares nothing: no %s %s in the file", crdAPIVersion, crdKind)
	}
	return out
}

// documentDigest is the digest of one document of a file: a change of
// one CRD of a file changes the declarations of that CRD only
// (SameDeclaration), so the others' watches go on. fileDigest is the
// fallback when the document cannot be encoded.
func documentDigest(fileDigest string, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fileDigest
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// expandLists replaces a List (kubectl get -o yaml) by its items.
func expandLists(docs []kubeDoc) []kubeDoc {
	var out []kubeDoc
	for _, doc := range docs {
		m, _ := doc.value.(map[string]any)
		kind, _ := m["kind"].(string)
		items, isList := m["items"].([]any)
		if !isList || (kind != "List" && kind != crdKind+"List") {
			out = append(out, doc)
			continue
		}
		for _, item := range items {
			out = append(out, kubeDoc{line: doc.line, value: item})
		}
	}
	return out
}

// parseKubeObject reads one document: a CRD or specd ConversionRules.
func parseKubeObject(file, digest string, v any, probs *problems) []*fileDecl {
	d := decoder{file: file, digest: digest, probs: probs}
	m, ok := v.(map[string]any)
	if !ok {
		probs.add(file, "", "must be a Kubernetes object (apiVersion, kind, metadata, spec), not %s", jsonType(v))
		return nil
	}
	apiVersion, _ := d.str(m, "apiVersion", "")
	kind, _ := d.str(m, "kind", "")
	switch {
	case kind == conversionRulesKind && apiVersion == conversionRulesAPIVersion:
		if side := parseConversionRules(d, m); side != nil {
			return []*fileDecl{{file: file, side: side}}
		}
		return nil
	case kind != crdKind:
		probs.add(file, "/kind", "kind %q: a schema file of Kubernetes objects holds %s %s objects (or %s %s)",
			kind, crdAPIVersion, crdKind, conversionRulesAPIVersion, conversionRulesKind)
		return nil
	case apiVersion == "apiextensions.k8s.io/v1beta1":
		probs.add(file, "/apiVersion", "apiVersion %s: Kubernetes no longer serves it (since 1.22); convert the CRD to %s", apiVersion, crdAPIVersion)
		return nil
	case apiVersion != crdAPIVersion:
		probs.add(file, "/apiVersion", "apiVersion %q: a CustomResourceDefinition must be %s", apiVersion, crdAPIVersion)
		return nil
	}
	return parseCRD(d, m)
}

// ParseCRD reads one CustomResourceDefinition (JSON, or YAML) of
// apiextensions.k8s.io/v1 and returns what it declares, as a schema file
// in the schema directory would, for Loader.LoadWith. source names it in
// problems (a file, or "customresourcedefinitions/<name>" for an object of
// the API); pointers are into the CRD document.
func ParseCRD(source string, data []byte) *Declarations {
	j, err := yaml.YAMLToJSONStrict(data)
	var v any
	if err == nil {
		err = json.Unmarshal(j, &v)
	}
	return parsedCRD(source, data, v, err)
}

// ParseCRDObject is ParseCRD of a CRD that is JSON, as the objects of the
// API are. It skips ParseCRD's reading as YAML, which costs more than the
// rest of the parse of a small CRD, and the CRD API parses every CRD it
// is sent, and again each time one is named and established. Unlike
// YAML's, the JSON reading takes the last of a key given twice; the API's
// objects, encoded by specd, never repeat one.
func ParseCRDObject(source string, data []byte) *Declarations {
	var v any
	err := json.Unmarshal(data, &v)
	return parsedCRD(source, data, v, err)
}

// parsedCRD is the declarations of the CRD v read from data, or the
// problem err when it could not be read.
func parsedCRD(source string, data []byte, v any, err error) *Declarations {
	probs := &problems{}
	decl := &Declarations{source: source, digest: fileDigest(data)}
	if err != nil {
		probs.add(source, "", "invalid CustomResourceDefinition: %v", err)
	} else {
		decl.files = parseKubeObject(source, decl.digest, v, probs)
	}
	decl.problems = probs.list
	return decl
}
