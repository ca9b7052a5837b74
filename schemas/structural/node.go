package structural

// typeMask is the set of JSON types a schema node admits.
type typeMask uint8

const (
	tObject typeMask = 1 << iota
	tArray
	tString
	tInteger
	tNumber
	tBoolean
)

// node is one compiled schema: the structural part (types, properties,
// items, additionalProperties, extensions, default) and the value
// validations kube-openapi applies.
type node struct {
	types     typeMask
	typeNames string // "integer,string": the type list as kube-openapi prints it
	nullable  bool

	preserveUnknown bool
	embedded        bool
	listType        string
	listMapKeys     []string

	props         map[string]*node
	propNames     []string // sorted
	additional    *node    // additionalProperties as a schema
	noAdditional  bool     // additionalProperties: false
	anyAdditional bool     // additionalProperties: true: keys kept, values pruned
	items         *node
	required      []string

	hasDefault bool
	def        any
	// defaultBelow: a property, additional property or item below has a
	// default (markDefaults).
	defaultBelow bool

	enum       []any
	enumQuoted []string // enum as field.NotSupported lists it

	format    string            // format kept after kube's stripping of unsupported formats
	formatOK  func(string) bool // non-nil for string formats kube validates
	numFormat string            // int32/int64/float/double for the number range check
	numType   string            // integer/number when the type is unambiguous

	pattern   *pattern
	minLength int64 // -1: unset
	maxLength int64
	minItems  int64
	maxItems  int64
	minProps  int64
	maxProps  int64
	unique    bool

	minimum, maximum *float64
	exclusiveMin     bool
	exclusiveMax     bool
	multipleOf       *float64

	allOf, anyOf, oneOf []*node
	not                 *node

	// hasValueChecks is false when validating a value against this node can
	// only ever check its type, so the hot path skips the other steps.
	hasValueChecks bool
}

func newNode() *node {
	return &node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
}

// child returns the schema for key k of an object: its property, or else
// the additionalProperties schema (nil when neither exists).
func (n *node) child(k string) *node {
	if n == nil {
		return nil
	}
	if p, ok := n.props[k]; ok {
		return p
	}
	return n.additional
}

func isMetaField(k string) bool {
	return k == "apiVersion" || k == "kind" || k == "metadata"
}
