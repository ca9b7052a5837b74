package celrules

import (
	"context"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apischema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
)

// Problem is a refused rule, at a JSON pointer relative to the compiled
// schema ("/properties/spec/x-kubernetes-validations/0/rule").
type Problem struct {
	Pointer string
	Message string
}

// Error renders the problem as "pointer: message".
func (p Problem) Error() string {
	if p.Pointer == "" {
		return "/: " + p.Message
	}
	return p.Pointer + ": " + p.Message
}

// Rules are the compiled x-kubernetes-validations of one object schema.
// They are immutable and safe for concurrent use.
type Rules struct {
	root      *node
	correlate *cachedSchema // the schema ratcheting pairs old and new values by
	count     int
	budget    int64 // per request: kube's RuntimeCELCostBudget
}

// Compile checks and compiles every rule of s, a whole object's schema
// with $refs resolved, as a CRD create would. It returns nil Rules when s
// has no rule, and every problem found; the Rules are nil when there is any.
// A schema whose Rules are still in use elsewhere gets them again
// (ruleCache), without compiling.
func Compile(s *openapi3.Schema) (*Rules, []Problem) {
	if !hasRules(s, map[*openapi3.Schema]bool{}) {
		return nil, nil
	}
	conv := converter{}
	props := conv.props(s, "")
	if len(conv.errs) > 0 || conv.rules == 0 {
		return nil, conv.errs
	}
	key, cacheable := keyOf(&props)
	if cacheable {
		if r := compiled.get(key); r != nil {
			return r, nil
		}
	}
	r, probs := compileProps(&props, conv.rules)
	if r != nil && cacheable {
		compiled.put(key, r)
	}
	return r, probs
}

// compileProps checks and compiles the rules of props, a whole object's
// schema with count rules.
func compileProps(props *apiextensions.JSONSchemaProps, count int) (*Rules, []Problem) {
	structural, err := apischema.NewStructural(props)
	if err != nil {
		return nil, []Problem{{Message: fmt.Sprintf("not a structural schema for CEL rules: %v", err)}}
	}
	chk := checker{envSet: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	root := crdvalidation.RootCELContext(props)
	chk.walk(props, "", "", root)
	chk.checkTotal(root.TotalCost)
	if len(chk.problems) > 0 {
		return nil, chk.problems
	}
	tree, err := buildRoot(structural)
	if err != nil {
		return nil, []Problem{{Message: err.Error()}}
	}
	return &Rules{
		root:      tree,
		correlate: newCachedSchema(structural),
		count:     count,
		budget:    celconfig.RuntimeCELCostBudget,
	}, nil
}

// Count is the number of rules compiled.
func (r *Rules) Count() int {
	if r == nil {
		return 0
	}
	return r.count
}

// Validate evaluates the rules on obj and appends one error per failed
// rule to errs, the errors already found in obj. old is the stored object
// on update (nil on create): transition rules see it as oldSelf, and a
// value equal to its old value is not judged again (ratcheting): its
// failures come back as warnings, as kube-apiserver sends them.
//
// As kube-apiserver does, the rules are not run on an object with errors
// that make them meaningless (a missing required field, a wrong type, an
// unsupported value, a list or string too long); one error says so.
func (r *Rules) Validate(ctx context.Context, obj, old map[string]any, errs field.ErrorList) (field.ErrorList, []string) {
	if r == nil {
		return errs, nil
	}
	if blocksRules(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")), nil
	}
	var oldObj any
	var rat ratchet
	if old != nil {
		oldObj = old
		rat.current = common.NewCorrelatedObject(obj, old, r.correlate)
	}
	var warnings recorder
	ev := &evaluation{ctx: warning.WithWarningRecorder(ctx, &warnings), budget: r.budget, errs: errs, ratcheting: ratchetingEnabled()}
	r.root.validate(ev, nil, obj, oldObj, rat)
	return ev.errs, warnings
}

// recorder collects the warnings of one validation.
type recorder []string

func (r *recorder) AddWarning(_, text string) { *r = append(*r, text) }

// blocksRules reports whether errs has an error after which kube-apiserver
// does not run CEL rules.
func blocksRules(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong,
			field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// fieldPathValid reports whether a rule's fieldPath names a field of the
// schema it is on, as a CRD create checks it.
func fieldPathValid(p *apiextensions.JSONSchemaProps, path string) bool {
	s, err := apischema.NewStructural(p)
	if err != nil {
		return true
	}
	_, _, err = cel.ValidFieldPath(path, s)
	return err == nil
}
