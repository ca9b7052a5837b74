package structural

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RuleSet is a schema's compiled x-kubernetes-validations (CEL rules),
// which package celrules compiles and evaluates; this package only keeps
// them with the schema they belong to.
type RuleSet interface {
	// Validate appends the errors of the rules on obj to errs, the errors
	// already found; old is the stored object on update, nil on create.
	// Failures that ratcheting lets through come back as warnings.
	Validate(ctx context.Context, obj, old map[string]any, errs field.ErrorList) (field.ErrorList, []string)
}

// WithRules returns a copy of s that carries rules.
func (s *Schema) WithRules(rules RuleSet) *Schema {
	c := *s
	c.rules = rules
	return &c
}

// ValidateRules evaluates the schema's CEL rules on obj (old on update)
// after errs, the errors Validate and the object meta checks found, and
// returns errs with the rules' errors appended, and the warnings to send
// for failures of unchanged values on update. Without rules it returns
// errs as they are.
func (s *Schema) ValidateRules(ctx context.Context, obj, old map[string]any, errs field.ErrorList) (field.ErrorList, []string) {
	if s.rules == nil {
		return errs, nil
	}
	return s.rules.Validate(ctx, obj, old, errs)
}
