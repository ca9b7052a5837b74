package structural

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	kjson "sigs.k8s.io/json"
)

// compiler walks a kin-openapi schema once and collects every problem.
type compiler struct {
	errs     []CompileError
	visiting map[*openapi3.Schema]bool
	// nested is how deep the walk is inside value validations (allOf,
	// anyOf, oneOf, not), where kube's structural rules forbid what
	// describes the structure.
	nested int
	// exempt is the first allOf of a structural schema whose anyOf is
	// the int-or-string pattern, while it is compiled.
	exempt *openapi3.Schema
}

func (c *compiler) errorf(ptr, format string, args ...any) {
	c.errs = append(c.errs, CompileError{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// PointerJoin appends reference tokens to a JSON pointer, escaping them
// ("~" and "/", RFC 6901).
func PointerJoin(ptr string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(t))
	}
	return b.String()
}

// compileRef compiles a resolved reference, or reports why it cannot.
func (c *compiler) compileRef(ref *openapi3.SchemaRef, ptr string) *node {
	if ref == nil || ref.Value == nil {
		if ref != nil && ref.Ref != "" {
			c.errorf(ptr, "unresolved $ref %q", ref.Ref)
		} else {
			c.errorf(ptr, "missing schema")
		}
		return nil
	}
	return c.compile(ref.Value, ptr)
}

func (c *compiler) compile(s *openapi3.Schema, ptr string) *node {
	if c.visiting[s] {
		c.errorf(ptr, "recursive schema ($ref cycle) is not allowed in a structural schema")
		return nil
	}
	c.visiting[s] = true
	defer delete(c.visiting, s)

	n := newNode()
	if s.Always != nil {
		if !*s.Always {
			c.errorf(ptr, "boolean schema false is not supported")
		}
		n.preserveUnknown = true
		return n
	}
	c.compileType(n, s, ptr)
	if c.nested > 0 {
		// Extensions are forbidden here, none applies.
		c.checkNested(s, ptr)
	} else {
		c.compileExtensions(n, s, ptr)
	}
	c.compileStructure(n, s, ptr)
	c.compileValidations(n, s, ptr)
	return n
}

func (c *compiler) compileType(n *node, s *openapi3.Schema, ptr string) {
	n.nullable = s.Nullable
	var names []string
	for _, t := range s.Type.Slice() {
		switch t {
		case "object":
			n.types |= tObject
		case "array":
			n.types |= tArray
		case "string":
			n.types |= tString
		case "integer":
			n.types |= tInteger
		case "number":
			n.types |= tNumber
		case "boolean":
			n.types |= tBoolean
		case "null":
			n.nullable = true
			continue
		default:
			c.errorf(PointerJoin(ptr, "type"), "unknown type %q", t)
			continue
		}
		names = append(names, t)
	}
	n.typeNames = strings.Join(names, ",")
	if len(names) == 1 && (names[0] == "integer" || names[0] == "number") {
		n.numType = names[0]
	}
}

func (c *compiler) compileStructure(n *node, s *openapi3.Schema, ptr string) {
	if len(s.Properties) > 0 {
		n.props = make(map[string]*node, len(s.Properties))
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names) // errors come in a stable order
		for _, name := range names {
			pptr := PointerJoin(ptr, "properties", name)
			if p := c.compileRef(s.Properties[name], pptr); p != nil {
				c.requireType(p, s.Properties[name].Value, pptr, "object fields")
				n.props[name] = p
				n.propNames = append(n.propNames, name)
			}
		}
	}
	ap := s.AdditionalProperties
	if ap.Schema != nil {
		aptr := PointerJoin(ptr, "additionalProperties")
		if n.additional = c.compileRef(ap.Schema, aptr); n.additional != nil {
			c.requireType(n.additional, ap.Schema.Value, aptr, "object fields")
		}
	} else if ap.Has != nil {
		n.noAdditional, n.anyAdditional = !*ap.Has, *ap.Has
	}
	if s.Items != nil {
		iptr := PointerJoin(ptr, "items")
		if n.items = c.compileRef(s.Items, iptr); n.items != nil {
			c.requireType(n.items, s.Items.Value, iptr, "array items")
		}
	} else if n.types&tArray != 0 && c.nested == 0 {
		c.errorf(PointerJoin(ptr, "items"), "must be specified for type array")
	}
	n.required = s.Required
	if s.Default != nil {
		v, err := normalizeJSON(s.Default)
		if err != nil {
			c.errorf(PointerJoin(ptr, "default"), "invalid default: %v", err)
		} else {
			n.hasDefault, n.def = true, v
		}
	}
}

// requireType enforces the structural-schema rule kube-apiserver applies to
// a CRD: every field and array item says its type, unless it is
// int-or-string or keeps unknown fields. Without it pruning and validation
// would have to guess what the field holds.
func (c *compiler) requireType(child *node, s *openapi3.Schema, ptr, what string) {
	if c.nested > 0 {
		return // a value validation says nothing of the type
	}
	if len(s.Type.Slice()) == 0 && child.types == 0 && !child.preserveUnknown {
		c.errorf(PointerJoin(ptr, "type"), "must not be empty for specified %s", what)
	}
}

// normalizeJSON re-decodes a value so that integers are int64, as in the
// objects this package works on.
func normalizeJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *compiler) compileValidations(n *node, s *openapi3.Schema, ptr string) {
	c.compileFormat(n, s.Format)
	if s.Pattern != "" {
		p, err := compilePattern(s.Pattern)
		if err != nil {
			c.errorf(PointerJoin(ptr, "pattern"), "invalid regular expression: %v", err)
		} else {
			n.pattern = p
		}
	}
	if s.MinLength > 0 {
		n.minLength = int64(s.MinLength)
	}
	n.maxLength = optInt(s.MaxLength)
	if s.MinItems > 0 {
		n.minItems = int64(s.MinItems)
	}
	n.maxItems = optInt(s.MaxItems)
	if s.MinProps > 0 {
		n.minProps = int64(s.MinProps)
	}
	n.maxProps = optInt(s.MaxProps)
	n.unique = s.UniqueItems
	n.minimum, n.maximum, n.multipleOf = s.Min, s.Max, s.MultipleOf
	n.exclusiveMin = c.exclusive(s.ExclusiveMin, &n.minimum)
	n.exclusiveMax = c.exclusive(s.ExclusiveMax, &n.maximum)
	for i, v := range s.Enum {
		nv, err := normalizeJSON(v)
		if err != nil {
			c.errorf(PointerJoin(ptr, "enum", fmt.Sprint(i)), "invalid enum value: %v", err)
			continue
		}
		n.enum = append(n.enum, nv)
		n.enumQuoted = append(n.enumQuoted, enumString(nv))
	}
	c.compileJunctors(n, s, ptr)
	n.hasValueChecks = n.formatOK != nil || n.numFormat != "" || n.numType == "integer" || n.pattern != nil ||
		n.minLength >= 0 || n.maxLength >= 0 || n.minItems >= 0 || n.maxItems >= 0 ||
		n.minProps >= 0 || n.maxProps >= 0 || n.unique || n.minimum != nil || n.maximum != nil ||
		n.multipleOf != nil || len(n.enum) > 0 || len(n.allOf) > 0 || len(n.anyOf) > 0 ||
		len(n.oneOf) > 0 || n.not != nil || n.noAdditional
}

// exclusive reads an OpenAPI 3.0 boolean or a 3.1 numeric exclusive bound.
func (c *compiler) exclusive(b openapi3.ExclusiveBound, bound **float64) bool {
	if b.Value != nil {
		*bound = b.Value
		return true
	}
	return b.IsTrue()
}

func optInt(v *uint64) int64 {
	if v == nil {
		return -1
	}
	return int64(*v)
}

// enumString renders an enum value the way kube-apiserver lists supported
// values: strings as they are, anything else as JSON.
func enumString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
