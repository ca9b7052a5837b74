package celrules

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/specd-io/specd/schemas/structural"
)

// supportedReasons are the reasons a rule may give, as in a CRD.
var supportedReasons = []string{
	string(apiextensions.FieldValueDuplicate), string(apiextensions.FieldValueForbidden),
	string(apiextensions.FieldValueInvalid), string(apiextensions.FieldValueRequired),
}

// checker walks a schema as a CRD create does for its rules: each rule
// compiles in the environment for new expressions, within kube's
// per-expression cost limit, and all of them within the per-CRD limit.
type checker struct {
	problems []Problem
	envSet   *environment.EnvSet
}

func (c *checker) add(ptr string, e *field.Error) {
	c.problems = append(c.problems, Problem{Pointer: ptr, Message: e.ErrorBody()})
}

// walk checks the rules of p and below. uncorrelatable is the pointer of
// the nearest ancestor below which old and new values cannot be paired
// ("" when there is none), where oldSelf is refused.
func (c *checker) walk(p *apiextensions.JSONSchemaProps, ptr, uncorrelatable string, ctx *crdvalidation.CELSchemaContext) {
	if ap := p.AdditionalProperties; ap != nil && ap.Schema != nil {
		c.walk(ap.Schema, join(ptr, "additionalProperties"), uncorrelatable, ctx.ChildAdditionalPropertiesContext(ap.Schema))
	}
	for _, name := range sortedNames(p.Properties) {
		prop := p.Properties[name]
		below := uncorrelatable
		if below == "" && !cel.MapIsCorrelatable(p.XMapType) {
			below = ptr
		}
		c.walk(&prop, join(ptr, "properties", name), below, ctx.ChildPropertyContext(&prop, name))
	}
	if p.Items != nil && p.Items.Schema != nil {
		below := uncorrelatable
		if below == "" && (p.XListType == nil || *p.XListType != "map") {
			below = ptr
		}
		c.walk(p.Items.Schema, join(ptr, "items"), below, ctx.ChildItemsContext(p.Items.Schema))
	}
	if len(p.XValidations) > 0 && c.checkRuleFields(p, ptr) {
		c.compile(p, ptr, uncorrelatable, ctx)
	}
}

var newlines = regexp.MustCompile(`[\n\r]+`)

// checkRuleFields checks what a rule says besides its expression, and
// reports whether the expressions are worth compiling.
func (c *checker) checkRuleFields(p *apiextensions.JSONSchemaProps, ptr string) bool {
	before := len(c.problems)
	for i, r := range p.XValidations {
		at := func(name string) string { return join(ptr, structural.ExtValidations, fmt.Sprint(i), name) }
		msg := strings.TrimSpace(r.Message)
		switch {
		case strings.TrimSpace(r.Rule) == "":
			c.add(at("rule"), field.Required(nil, "rule is not specified"))
		case r.Message != "" && msg == "":
			c.add(at("message"), field.Invalid(nil, r.Message, "must be non-empty if specified"))
		case newlines.MatchString(msg):
			c.add(at("message"), field.Invalid(nil, r.Message, "must not contain line breaks"))
		case newlines.MatchString(strings.TrimSpace(r.Rule)) && msg == "":
			c.add(at("message"), field.Required(nil, "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			c.add(at("messageExpression"), field.Required(nil, "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !supportedReason(string(*r.Reason)) {
			c.add(at("reason"), field.NotSupported(nil, *r.Reason, supportedReasons))
		}
		c.checkFieldPath(p, r.FieldPath, at("fieldPath"))
	}
	return len(c.problems) == before
}

func supportedReason(r string) bool {
	for _, s := range supportedReasons {
		if r == s {
			return true
		}
	}
	return false
}

func (c *checker) checkFieldPath(p *apiextensions.JSONSchemaProps, path, ptr string) {
	switch {
	case path == "":
	case strings.TrimSpace(path) == "":
		c.add(ptr, field.Invalid(nil, path, "must be non-empty if specified"))
	case newlines.MatchString(path):
		c.add(ptr, field.Invalid(nil, path, "must not contain line breaks"))
	default:
		if !fieldPathValid(p, path) {
			c.add(ptr, field.Invalid(nil, path, "must be a valid path"))
		}
	}
}

// compile compiles the rules of p as a CRD create does and charges their
// estimated costs.
func (c *checker) compile(p *apiextensions.JSONSchemaProps, ptr, uncorrelatable string, ctx *crdvalidation.CELSchemaContext) {
	info, err := ctx.TypeInfo()
	if err != nil || info == nil {
		c.add(join(ptr, structural.ExtValidations), field.InternalError(nil, fmt.Errorf("failed to construct type information for x-kubernetes-validations rules: %v", err)))
		return
	}
	results, err := cel.Compile(info.Schema, info.DeclType, celconfig.PerCallLimit, c.envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		c.add(join(ptr, structural.ExtValidations), field.InternalError(nil, err))
		return
	}
	for i, res := range results {
		c.compiled(p.XValidations[i], res, join(ptr, structural.ExtValidations, fmt.Sprint(i)), uncorrelatable, ctx)
	}
}

// compiled reports the problems of one compiled rule at ptr.
func (c *checker) compiled(r apiextensions.ValidationRule, res cel.CompilationResult, ptr, uncorrelatable string, ctx *crdvalidation.CELSchemaContext) {
	rulePtr := join(ptr, "rule")
	c.charge(rulePtr, "estimated rule cost", expressionCost(res, ctx), ctx)
	if res.Error != nil {
		if res.Error.Type == apiservercel.ErrorTypeRequired {
			c.add(rulePtr, field.Required(nil, res.Error.Detail))
		} else {
			c.add(rulePtr, field.Invalid(nil, r.Rule, res.Error.Detail))
		}
	}
	if res.MessageExpressionError != nil {
		c.add(join(ptr, "messageExpression"), field.Invalid(nil, r.MessageExpression, res.MessageExpressionError.Detail))
	} else if res.MessageExpression != nil {
		c.charge(join(ptr, "messageExpression"), "estimated messageExpression cost", res.MessageExpressionMaxCost, ctx)
	}
	switch {
	case res.UsesOldSelf && uncorrelatable != "":
		c.add(rulePtr, field.Invalid(nil, r.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %s", uncorrelatable)))
	case !res.UsesOldSelf && r.OptionalOldSelf != nil:
		c.add(join(ptr, "optionalOldSelf"), field.Invalid(nil, *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
	}
}

// charge refuses an expression over kube's per-expression limit and adds
// its cost to the schema's total. The total's path is the JSON pointer.
func (c *checker) charge(ptr, what string, cost uint64, ctx *crdvalidation.CELSchemaContext) {
	if cost > crdvalidation.StaticEstimatedCostLimit {
		c.add(ptr, field.Forbidden(nil, costMessage(what, cost, crdvalidation.StaticEstimatedCostLimit)))
	}
	if ctx.TotalCost != nil {
		ctx.TotalCost.ObserveExpressionCost(field.NewPath(ptr), cost)
	}
}

// checkTotal refuses a schema whose rules together exceed kube's per-CRD
// estimated cost limit, naming the most expensive rules as kube does.
func (c *checker) checkTotal(total *crdvalidation.TotalCost) {
	if total == nil || total.Total <= crdvalidation.StaticEstimatedCRDCostLimit {
		return
	}
	for _, expensive := range total.MostExpensive {
		c.add(expensive.Path.String(), field.Forbidden(nil, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
	}
	c.add("", field.Forbidden(nil, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total.Total, crdvalidation.StaticEstimatedCRDCostLimit)))
}

// expressionCost is the estimated cost of a rule times the number of
// values it may run on, as kube computes it.
func expressionCost(res cel.CompilationResult, ctx *crdvalidation.CELSchemaContext) uint64 {
	cardinality := res.MaxCardinality
	if ctx.MaxCardinality != nil {
		cardinality = *ctx.MaxCardinality
	}
	if res.MaxCost == 0 {
		return 0
	}
	if ^uint64(0)/res.MaxCost < cardinality {
		return ^uint64(0)
	}
	return res.MaxCost * cardinality
}

// costMessage words a cost over its limit as kube-apiserver does.
func costMessage(what string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var f string
	switch {
	case factor > 100:
		f = "more than 100x"
	case factor < 1.5:
		f = fmt.Sprintf("%fx", factor)
	default:
		f = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, f)
}
