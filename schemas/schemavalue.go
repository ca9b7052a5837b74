package schemas

import (
	"math"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/runtime"
)

// schemaOf builds the openapi3.Schema that kin-openapi's decoder makes of
// v, a schema as encoding/json decodes it into an any, in one pass over
// v. ok is false for whatever it does not build exactly alike (a value of
// the wrong type, a key it does not handle, a $ref): that schema goes
// through kin-openapi's decoder, which also says what is wrong with it.
//
// kin-openapi's decoder decodes each nested schema's bytes again, and
// into a map too for its extensions, so a CRD's schema cost time in the
// square of its depth: 35% of a load of the CRD corpus from its files.
// Values (defaults, enums, extensions) are copied, so that the schema
// shares no map or slice with the document it was read from; what
// encoding/json decodes is all of the kinds runtime.DeepCopyJSONValue
// copies.
func schemaOf(v any) (*openapi3.Schema, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	s := &openapi3.Schema{}
	for k, val := range m {
		if !setSchemaKey(s, k, val) {
			return nil, false
		}
	}
	return s, true
}

// setSchemaKey sets the field of s that key k names to val; a key kin-
// openapi does not know is an extension, as it keeps them.
func setSchemaKey(s *openapi3.Schema, k string, val any) bool {
	if val == nil {
		return false // a null decodes as nothing, or fails: kin-openapi says
	}
	if handled, ok := setField(s, k, val); handled {
		return ok
	}
	if kinOpenAPIKeys[strings.ToLower(k)] {
		// Known in another case, which encoding/json matches too; or known
		// and not handled here.
		return false
	}
	if s.Extensions == nil {
		s.Extensions = map[string]any{}
	}
	s.Extensions[k] = runtime.DeepCopyJSONValue(val)
	return true
}

// kinOpenAPIKeys are the keys kin-openapi's Schema decodes into fields
// (openapi3.Schema's json tags), lower-cased, and $ref.
var kinOpenAPIKeys = func() map[string]bool {
	keys := map[string]bool{}
	for _, k := range strings.Fields(`oneOf anyOf allOf not type title format description enum default example externalDocs
		uniqueItems exclusiveMinimum exclusiveMaximum nullable readOnly writeOnly allowEmptyValue deprecated xml
		minimum maximum multipleOf minLength maxLength pattern minItems maxItems items required properties
		minProperties maxProperties additionalProperties discriminator const examples prefixItems contains
		minContains maxContains patternProperties dependentSchemas propertyNames unevaluatedItems
		unevaluatedProperties if then else dependentRequired $defs $schema $comment $id $anchor $dynamicRef
		$dynamicAnchor contentMediaType contentEncoding contentSchema $ref`) {
		keys[strings.ToLower(k)] = true
	}
	return keys
}()

// setField sets the field of key k, when it is one that CRD schemas use;
// handled is false for any other key.
func setField(s *openapi3.Schema, k string, v any) (handled, ok bool) {
	if handled, ok = setText(s, k, v); handled {
		return true, ok
	}
	if handled, ok = setBound(s, k, v); handled {
		return true, ok
	}
	return setSubschemas(s, k, v)
}

// setText sets the fields of strings, flags and lists of values.
func setText(s *openapi3.Schema, k string, v any) (handled, ok bool) {
	switch k {
	case "type":
		return true, setTypes(&s.Type, v)
	case "title":
		return true, setString(&s.Title, v)
	case "format":
		return true, setString(&s.Format, v)
	case "description":
		return true, setString(&s.Description, v)
	case "pattern":
		return true, setString(&s.Pattern, v)
	case "$schema":
		return true, setString(&s.SchemaDialect, v)
	case "required":
		return true, setStrings(&s.Required, v)
	case "enum":
		return true, setList(&s.Enum, v)
	case "default":
		s.Default = runtime.DeepCopyJSONValue(v)
		return true, true
	case "example":
		s.Example = runtime.DeepCopyJSONValue(v)
		return true, true
	case "uniqueItems":
		return true, setBool(&s.UniqueItems, v)
	case "nullable":
		return true, setBool(&s.Nullable, v)
	case "readOnly":
		return true, setBool(&s.ReadOnly, v)
	case "writeOnly":
		return true, setBool(&s.WriteOnly, v)
	case "deprecated":
		return true, setBool(&s.Deprecated, v)
	}
	return false, false
}

// setBound sets the fields of numeric bounds.
func setBound(s *openapi3.Schema, k string, v any) (handled, ok bool) {
	switch k {
	case "minimum":
		return true, setFloat(&s.Min, v)
	case "maximum":
		return true, setFloat(&s.Max, v)
	case "multipleOf":
		return true, setFloat(&s.MultipleOf, v)
	case "exclusiveMinimum":
		return true, setExclusive(&s.ExclusiveMin, v)
	case "exclusiveMaximum":
		return true, setExclusive(&s.ExclusiveMax, v)
	case "minLength":
		return true, setUint(&s.MinLength, v)
	case "minItems":
		return true, setUint(&s.MinItems, v)
	case "minProperties":
		return true, setUint(&s.MinProps, v)
	case "maxLength":
		return true, setUintPtr(&s.MaxLength, v)
	case "maxItems":
		return true, setUintPtr(&s.MaxItems, v)
	case "maxProperties":
		return true, setUintPtr(&s.MaxProps, v)
	}
	return false, false
}

// setSubschemas sets the fields that hold schemas.
func setSubschemas(s *openapi3.Schema, k string, v any) (handled, ok bool) {
	switch k {
	case "items":
		return true, setRef(&s.Items, v)
	case "not":
		return true, setRef(&s.Not, v)
	case "allOf":
		return true, setRefs(&s.AllOf, v)
	case "anyOf":
		return true, setRefs(&s.AnyOf, v)
	case "oneOf":
		return true, setRefs(&s.OneOf, v)
	case "properties":
		return true, setSchemas(&s.Properties, v)
	case "additionalProperties":
		return true, setBoolSchema(&s.AdditionalProperties, v)
	}
	return false, false
}

func setString(dst *string, v any) bool {
	s, ok := v.(string)
	*dst = s
	return ok
}

func setBool(dst *bool, v any) bool {
	b, ok := v.(bool)
	*dst = b
	return ok
}

func setFloat(dst **float64, v any) bool {
	f, ok := v.(float64)
	*dst = &f
	return ok
}

// asUint is v as kin-openapi's decoder reads it into a uint64: the text
// json.Marshal writes of the number (the shortest that reads back as the
// same float64, so 2^64-2048 is 18446744073709550000), parsed as a
// uint64: a whole number, not negative, that fits.
func asUint(v any) (uint64, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f >= 1e21 {
		return 0, false
	}
	u, err := strconv.ParseUint(strconv.FormatFloat(f, 'f', -1, 64), 10, 64)
	return u, err == nil
}

func setUint(dst *uint64, v any) bool {
	u, ok := asUint(v)
	*dst = u
	return ok
}

func setUintPtr(dst **uint64, v any) bool {
	u, ok := asUint(v)
	*dst = &u
	return ok
}

// setTypes takes a type or a list of types, as openapi3.Types decodes.
func setTypes(dst **openapi3.Types, v any) bool {
	if s, ok := v.(string); ok {
		*dst = &openapi3.Types{s}
		return true
	}
	var list []string
	if !setStrings(&list, v) {
		return false
	}
	t := openapi3.Types(list)
	*dst = &t
	return true
}

func setStrings(dst *[]string, v any) bool {
	items, ok := v.([]any)
	if !ok {
		return false
	}
	out := make([]string, len(items))
	for i, item := range items {
		if out[i], ok = item.(string); !ok {
			return false
		}
	}
	*dst = out
	return true
}

func setList(dst *[]any, v any) bool {
	items, ok := v.([]any)
	if ok {
		*dst = runtime.DeepCopyJSONValue(items).([]any)
	}
	return ok
}

// setExclusive takes exclusiveMinimum or exclusiveMaximum: a boolean (OpenAPI
// 3.0) or a number (3.1).
func setExclusive(dst *openapi3.ExclusiveBound, v any) bool {
	switch t := v.(type) {
	case bool:
		dst.Bool = &t
	case float64:
		dst.Value = &t
	default:
		return false
	}
	return true
}

func setRef(dst **openapi3.SchemaRef, v any) bool {
	s, ok := schemaOf(v)
	if ok {
		*dst = &openapi3.SchemaRef{Value: s}
	}
	return ok
}

func setRefs(dst *openapi3.SchemaRefs, v any) bool {
	items, ok := v.([]any)
	if !ok {
		return false
	}
	out := make(openapi3.SchemaRefs, len(items))
	for i, item := range items {
		if !setRef(&out[i], item) {
			return false
		}
	}
	*dst = out
	return true
}

func setSchemas(dst *openapi3.Schemas, v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	out := make(openapi3.Schemas, len(m))
	for name, item := range m {
		var ref *openapi3.SchemaRef
		if !setRef(&ref, item) {
			return false
		}
		out[name] = ref
	}
	*dst = out
	return true
}

// setBoolSchema takes additionalProperties: a boolean or a schema.
func setBoolSchema(dst *openapi3.BoolSchema, v any) bool {
	if b, ok := v.(bool); ok {
		dst.Has = &b
		return true
	}
	return setRef(&dst.Schema, v)
}
