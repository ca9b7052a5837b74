package celrules

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/warning"
)

// The evaluation below walks the object as kube's schema/cel Validator
// walks it, and says what it says: the same errors, in the same order,
// at the same field paths with the same reasons and values, the same
// warnings for ratcheted errors, and the same cost accounting. It exists
// because that Validator reads values through model.Structural, whose
// children are rebuilt on every field access (see cachedSchema), and
// cannot be given another schema adapter. TestSameAsKube compares the
// two over the corpus and this package's cases.

// evaluation is the state of one Validate call.
type evaluation struct {
	ctx        context.Context
	budget     int64 // remaining runtime cost; negative once exhausted
	errs       field.ErrorList
	ratcheting bool // the CRDValidationRatcheting feature (optionalOldSelf on create)
}

// exhausted reports whether the budget ran out and nothing more is run.
func (ev *evaluation) exhausted() bool { return ev.budget < 0 }

// stop records err and ends the evaluation, as kube does when a rule
// cannot be costed or the budget runs out.
func (ev *evaluation) stop(err *field.Error) {
	ev.errs = append(ev.errs, err)
	ev.budget = -1
}

// validate runs the rules of n and of the nodes below it on obj, whose
// old value is old (nil when there is none or it cannot be correlated).
// A nil node has no rules: the schema's rules were all where CEL cannot
// type the value, which kube leaves out too.
func (n *node) validate(ev *evaluation, path *field.Path, obj, old any, r ratchet) {
	if n == nil || obj == nil {
		return
	}
	n.validateRules(ev, path, obj, absentIfNil(old), r)
	if ev.exhausted() {
		return
	}
	switch obj := obj.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		n.validateMap(ev, path, obj, oldMap, r)
	case []any:
		oldList, _ := old.([]any)
		n.validateList(ev, path, obj, oldList, r)
	}
}

// absentIfNil turns a nil map or list held in an interface into nil, so
// that oldSelf is absent rather than an empty value.
func absentIfNil(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return nil
		}
	case []any:
		if v == nil {
			return nil
		}
	}
	return v
}

// validateMap validates the values of an object's properties, or of a
// map's entries, that have rules below them.
func (n *node) validateMap(ev *evaluation, path *field.Path, obj, old map[string]any, r ratchet) {
	correlatable := cel.MapIsCorrelatable(n.schema.XMapType)
	if n.additional != nil {
		for k, v := range obj {
			n.additional.validate(ev, path.Key(k), v, oldValue(correlatable, old, k), r.key(k))
			if ev.exhausted() {
				return
			}
		}
	}
	if n.properties == nil {
		return
	}
	for k, v := range obj {
		if child, ok := n.properties[k]; ok {
			child.validate(ev, path.Child(k), v, oldValue(correlatable, old, k), r.key(k))
			if ev.exhausted() {
				return
			}
		}
	}
}

func oldValue(correlatable bool, old map[string]any, k string) any {
	if !correlatable {
		return nil
	}
	return old[k]
}

// validateList validates a list's items. Only the items of a map list
// have old values: the old item with the same keys.
func (n *node) validateList(ev *evaluation, path *field.Path, obj, old []any, r ratchet) {
	if n.items == nil {
		return
	}
	oldItems := common.MakeMapList(n.list, old)
	for i, item := range obj {
		n.items.validate(ev, path.Index(i), item, oldItems.Get(item), r.index(i))
		if ev.exhausted() {
			return
		}
	}
}

// validateRules runs the rules on n itself.
func (n *node) validateRules(ev *evaluation, path *field.Path, obj, old any, r ratchet) {
	if len(n.rules) == 0 {
		return
	}
	if ev.budget <= 0 {
		ev.stop(field.Invalid(path, n.schema.Type, "validation failed due to running out of cost budget, no further validation rules will be run"))
		return
	}
	act, optionalAct := n.activations(obj, old)
	for i := range n.rules {
		rl := &n.rules[i]
		if rl.Program == nil || (rl.UsesOldSelf && old == nil && !(ev.ratcheting && rl.optionalOldSelf())) {
			continue // a transition rule runs only with an old value, unless oldSelf is optional
		}
		ruleAct := act
		if rl.optionalOldSelf() {
			ruleAct = optionalAct
		}
		if !n.runRule(ev, path, rl, ruleAct) {
			n.reportFailure(ev, path, rl, act, obj, r)
		}
		if ev.exhausted() {
			return
		}
	}
}

func (rl *compiledRule) optionalOldSelf() bool {
	return rl.spec.OptionalOldSelf != nil && *rl.spec.OptionalOldSelf
}

// runRule evaluates one rule and charges its cost; it reports false only
// when the rule evaluated to false. An evaluation error is recorded as
// kube records it.
func (n *node) runRule(ev *evaluation, path *field.Path, rl *compiledRule, act interpreter.Activation) bool {
	result, details, err := rl.Program.ContextEval(ev.ctx, act)
	if !ev.charge(path, n.schema.Type, details, "validation rule: "+ruleErrorString(rl)) {
		return true
	}
	if err != nil {
		ev.evalError(path, n.schema.Type, err, rl)
		return true
	}
	return result == types.True
}

// charge takes an evaluation's cost from the budget; false when it could
// not, and the evaluation was stopped.
func (ev *evaluation) charge(path *field.Path, typ string, details *celgo.EvalDetails, what string) bool {
	if details == nil {
		ev.stop(field.InternalError(path, fmt.Errorf("runtime cost could not be calculated for %s, no further validation rules will be run", what)))
		return false
	}
	cost := details.ActualCost()
	switch {
	case cost == nil:
		ev.stop(field.Invalid(path, typ, fmt.Sprintf("runtime cost could not be calculated for %s, no further validation rules will be run", what)))
		return false
	case *cost > math.MaxInt64 || int64(*cost) > ev.budget:
		ev.stop(field.Invalid(path, typ, "validation failed due to running out of cost budget, no further validation rules will be run"))
		return false
	}
	ev.budget -= int64(*cost)
	return true
}

// evalError records a rule that could not be evaluated.
func (ev *evaluation) evalError(path *field.Path, typ string, err error, rl *compiledRule) {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "no such overload"):
		// int-or-string values are dynamic, so a type mismatch shows only
		// when the rule runs.
		ev.errs = append(ev.errs, field.Invalid(path, typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(rl))))
	case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
		ev.stop(field.Invalid(path, typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(rl))))
	default:
		ev.errs = append(ev.errs, field.Invalid(path, typ, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(rl))))
	}
}

// reportFailure records a rule that evaluated to false: at its fieldPath,
// with its reason and message (or messageExpression), as a warning
// instead when the value is unchanged and the rule does not use oldSelf
// (ratcheting).
func (n *node) reportFailure(ev *evaluation, path *field.Path, rl *compiledRule, act interpreter.Activation, obj any, r ratchet) {
	if rl.NormalizedRuleFieldPath != "" {
		path = path.Child(rl.NormalizedRuleFieldPath)
	}
	add := func(e *field.Error) {
		if !rl.UsesOldSelf && r.unchanged() {
			warning.AddWarning(ev.ctx, "", e.Error())
			return
		}
		ev.errs = append(ev.errs, e)
	}
	detail, ok := n.evalMessage(ev, path, rl, act, add)
	if ev.exhausted() {
		return
	}
	if !ok {
		detail = ruleMessageOrDefault(rl)
	}
	value := obj
	if n.schema.Type == "object" || n.schema.Type == "array" {
		value = field.OmitValueType{}
	}
	add(fieldErrorForReason(path, value, detail, rl.spec.Reason))
}

// evalMessage evaluates the rule's messageExpression, if any; ok is false
// when there is none or it failed in a way that falls back to message.
func (n *node) evalMessage(ev *evaluation, path *field.Path, rl *compiledRule, act interpreter.Activation, add func(*field.Error)) (string, bool) {
	if rl.MessageExpression == nil {
		return "", false
	}
	msg, budget, err := evalMessageExpression(ev.ctx, rl, act, ev.budget)
	switch {
	case err == nil:
		ev.budget = budget
		return msg, true
	case err.Type == apiservercel.ErrorTypeInternal:
		add(field.InternalError(path, err))
		ev.budget = -1
	case err.Type == apiservercel.ErrorTypeInvalid:
		add(field.Invalid(path, n.schema.Type, err.Error()))
		ev.budget = -1
	default:
		slog.Debug("messageExpression evaluation failed", "messageExpression", rl.spec.MessageExpression, "err", err)
		ev.budget = budget
	}
	return "", false
}

// activations are the variables of n's rules: self, and oldSelf for
// transition rules; the second has oldSelf as an optional, for rules
// with optionalOldSelf.
func (n *node) activations(obj, old any) (interpreter.Activation, interpreter.Activation) {
	self := common.UnstructuredToVal(obj, n.self)
	if !n.oldSelf {
		a := &activation{self: self}
		return a, a
	}
	a := &activation{self: self}
	optional := &activation{self: self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if old != nil {
		a.oldSelf, a.hasOldSelf = common.UnstructuredToVal(old, n.self), true
		optional.oldSelf = types.OptionalOf(a.oldSelf)
	}
	return a, optional
}

// activation resolves self and oldSelf.
type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// fieldErrorForReason is the error of a failed rule with the given
// reason; FieldValueInvalid when there is none.
func fieldErrorForReason(path *field.Path, value any, detail string, reason *apiextensionsv1.FieldValueErrorReason) *field.Error {
	if reason == nil {
		return field.Invalid(path, value, detail)
	}
	switch *reason {
	case apiextensionsv1.FieldValueForbidden:
		return field.Forbidden(path, detail)
	case apiextensionsv1.FieldValueRequired:
		return field.Required(path, detail)
	case apiextensionsv1.FieldValueDuplicate:
		return field.Duplicate(path, value)
	}
	return field.Invalid(path, value, detail)
}

// ruleMessageOrDefault is the message of a failed rule without a
// messageExpression.
func ruleMessageOrDefault(rl *compiledRule) string {
	if rl.spec.Message == "" {
		return "failed rule: " + ruleErrorString(rl)
	}
	return strings.TrimSpace(rl.spec.Message)
}

// ruleErrorString names a rule in errors: its message, else its source.
func ruleErrorString(rl *compiledRule) string {
	if rl.spec.Message != "" {
		return strings.TrimSpace(rl.spec.Message)
	}
	return strings.TrimSpace(rl.spec.Rule)
}

// ratchetingEnabled is read once per validation, as it cannot change
// while specd runs.
func ratchetingEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.CRDValidationRatcheting)
}
