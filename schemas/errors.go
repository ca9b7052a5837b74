package schemas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"
)

// located is an OpenAPI validation error placed at a JSON pointer.
type located struct {
	pointer    string
	message    string
	components bool // inside components
}

// sectionKeys maps kin-openapi's section names to document fields.
var sectionKeys = map[string]string{"external docs": "externalDocs"}

// componentKeys maps kin-openapi's component kinds to components fields.
var componentKeys = map[string]string{
	"schema": "schemas", "parameter": "parameters", "header": "headers",
	"request body": "requestBodies", "response": "responses",
	"security scheme": "securitySchemes", "example": "examples",
	"link": "links", "callback": "callbacks",
}

// locateValidationErrors places every error of doc.Validate at the most
// precise pointer its context gives; schema errors are narrowed down to
// the innermost inline schema that fails.
func locateValidationErrors(doc *openapi3.T, err error) []located {
	var out []located
	for _, leaf := range leaves(err) {
		out = append(out, locate(doc, leaf)...)
	}
	return out
}

func leaves(err error) []error {
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		var out []error
		for _, e := range me {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

func locate(doc *openapi3.T, err error) []located {
	var sec *openapi3.SectionValidationError
	if !errors.As(err, &sec) {
		return []located{{message: firstLine(err.Error())}}
	}
	key := sec.Section
	if k, ok := sectionKeys[key]; ok {
		key = k
	}
	base, msg := ptr("", key), firstLine(sec.Cause.Error())
	var comp *openapi3.ComponentValidationError
	var pe *openapi3.PathValidationError
	switch {
	case errors.As(err, &comp):
		bucket := componentKeys[comp.Section]
		if bucket == "" {
			bucket = comp.Section
		}
		base, msg = ptr("/components", bucket, comp.Name), firstLine(comp.Cause.Error())
		if bucket == "schemas" && doc.Components != nil {
			if ref := doc.Components.Schemas[comp.Name]; ref != nil && ref.Value != nil {
				return markComponents(locateSchema(base, ref.Value, comp.Cause))
			}
		}
		return markComponents([]located{{pointer: base, message: msg}})
	case errors.As(err, &pe):
		base, msg = ptr("/paths", pe.Path), firstLine(pe.Cause.Error())
	}
	var req *openapi3.RequiredFieldError
	if errors.As(err, &req) && strings.HasPrefix(req.Field, key+".") {
		base = ptr("", strings.Split(req.Field, ".")...)
	}
	return []located{{pointer: base, message: msg, components: key == "components"}}
}

func markComponents(ls []located) []located {
	for i := range ls {
		ls[i].components = true
	}
	return ls
}

// locateSchema finds the innermost inline schemas under s that fail
// validation on their own; s itself when none does.
//
// A failure that comes from a $ref'd schema is left out: the validator
// reports it at the components schema the $ref names.
func locateSchema(at string, s *openapi3.Schema, err error) []located {
	var out []located
	refFails := false
	for _, c := range subSchemas(s) {
		err := c.ref.Value.Validate(context.Background(), validationOptions(false)...)
		switch {
		case err == nil:
		case c.ref.Ref != "":
			refFails = true
		default:
			out = append(out, locateSchema(ptr(at, c.tokens...), c.ref.Value, err)...)
		}
	}
	if len(out) == 0 && !refFails {
		return []located{{pointer: ptr(at, keywordOf(err)...), message: firstLine(err.Error())}}
	}
	return out
}

// keywordOf names the schema keyword a validation error is about, when
// the error says.
func keywordOf(err error) []string {
	var value *openapi3.SchemaValueError
	var typ *openapi3.SchemaTypeError
	var pattern *openapi3.SchemaPatternRegexError
	var required *openapi3.DuplicateRequiredFieldError
	switch {
	case errors.As(err, &value):
		return []string{value.ValueKind}
	case errors.As(err, &typ):
		return []string{"type"}
	case errors.As(err, &pattern):
		return []string{"pattern"}
	case errors.As(err, &required):
		return []string{"required"}
	}
	return nil
}

// firstLine drops the schema and value dumps kin-openapi appends.
func firstLine(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return strings.TrimSpace(msg[:i])
	}
	return msg
}

// reportLoadError explains why kin-openapi could not load a file: a syntax
// error, every $ref that does not resolve, every value of the wrong shape,
// or else its own message. When only values of the wrong shape were
// wrong, it returns the document without them, so that the caller can load
// the rest and report its problems too.
func reportLoadError(file string, data []byte, err error, probs *problems) (repaired []byte) {
	raw, msg := parseRaw(file, data)
	if msg != "" {
		probs.add(file, "", "%s", msg)
		return nil
	}
	if _, ok := raw.(map[string]any); !ok {
		probs.add(file, "", "must be an OpenAPI document (an object with openapi, info, x-specd and components), not %s", jsonType(raw))
		return nil
	}
	before := len(probs.list)
	checkRefs(file, raw, raw, "", probs)
	if len(probs.list) > before {
		return nil
	}
	bad := locateUnmarshalErrors(raw)
	if len(bad) == 0 {
		probs.add(file, "", "invalid OpenAPI document: %s", cleanLoadError(err))
		return nil
	}
	for _, b := range bad {
		probs.add(file, b.pointer(), "%s", b.message)
	}
	repaired, err = withoutValues(raw, bad)
	if err != nil {
		return nil
	}
	return repaired
}

// parseRaw decodes a file as JSON (.json) or YAML; on failure it returns a
// message with the position of the error.
func parseRaw(file string, data []byte) (any, string) {
	var raw any
	if strings.EqualFold(path.Ext(file), ".json") {
		if err := json.Unmarshal(data, &raw); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line, col := position(data, se.Offset-1)
				return nil, fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, se)
			}
			return nil, "invalid JSON: " + err.Error()
		}
		return raw, ""
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, "invalid YAML: " + strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	}
	if err := json.Unmarshal(j, &raw); err != nil {
		return nil, "invalid YAML: " + err.Error()
	}
	return raw, ""
}

// checkRefs reports every $ref under v that is not a local reference to
// an existing part of the document.
func checkRefs(file string, root, v any, at string, probs *problems) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if r, ok := t[k].(string); ok && k == "$ref" {
				if msg := refError(root, r); msg != "" {
					probs.add(file, ptr(at, "$ref"), "$ref %q: %s", r, msg)
				}
				continue
			}
			checkRefs(file, root, t[k], ptr(at, k), probs)
		}
	case []any:
		for i, item := range t {
			checkRefs(file, root, item, ptr(at, index(i)), probs)
		}
	}
}

func refError(root any, ref string) string {
	if !strings.HasPrefix(ref, "#") {
		return "only references inside the same document (#/components/schemas/...) are supported"
	}
	cur := root
	for _, tok := range splitPointer(strings.TrimPrefix(ref, "#")) {
		m, ok := cur.(map[string]any)
		if !ok {
			return "does not resolve"
		}
		if cur, ok = m[tok]; !ok {
			return "does not resolve: no " + tok
		}
	}
	return ""
}

// cleanLoadError keeps the part of kin-openapi's message that matters.
func cleanLoadError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "yaml error: "); i >= 0 {
		msg = msg[i+len("yaml error: "):]
	}
	for _, p := range []string{"error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
