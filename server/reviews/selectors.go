package reviews

import (
	"errors"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// The label and field selectors of a review's resource attributes: the
// list or watch they would restrict. kube validates them, hands them to
// the authorizer parsed (a webhook authorizer may decide by them; RBAC
// does not), and says in status.evaluationError which it had to ignore.
// The checks and their words are kube's
// (pkg/apis/authorization/validation, pkg/registry/authorization/util).

// validateSelectors checks res's selectors: a raw selector or
// requirements, not both, and requirements that could be valid.
func validateSelectors(res *authorizationv1.ResourceAttributes) field.ErrorList {
	if res == nil {
		return nil
	}
	path := field.NewPath("spec", "resourceAttributes")
	var errs field.ErrorList
	if s := res.FieldSelector; s != nil {
		p := path.Child("fieldSelector")
		errs = append(errs, rawOrRequirements(s.RawSelector, len(s.Requirements), p)...)
		opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range s.Requirements {
			errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, opts, p.Child("requirements").Index(i))...)
		}
	}
	if s := res.LabelSelector; s != nil {
		p := path.Child("labelSelector")
		errs = append(errs, rawOrRequirements(s.RawSelector, len(s.Requirements), p)...)
		opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range s.Requirements {
			errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, opts, p.Child("requirements").Index(i))...)
		}
	}
	return errs
}

func rawOrRequirements(raw string, requirements int, p *field.Path) field.ErrorList {
	switch {
	case raw != "" && requirements > 0:
		return field.ErrorList{field.Invalid(p.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	case raw == "" && requirements == 0:
		return field.ErrorList{field.Required(p.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", p))}
	}
	return nil
}

// withSelectors sets a's selectors from res's, parsed as kube parses
// them; a selector that does not parse is kept as its parsing error.
func withSelectors(a authorizer.AttributesRecord, res *authorizationv1.ResourceAttributes) authorizer.AttributesRecord {
	if s := res.LabelSelector; s != nil {
		if s.RawSelector != "" {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = parseLabels(s.RawSelector)
		}
		if len(s.Requirements) > 0 {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = labelRequirements(s.Requirements)
		}
	}
	if s := res.FieldSelector; s != nil {
		if s.RawSelector != "" {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = parseFields(s.RawSelector)
		}
		if len(s.Requirements) > 0 {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = fieldRequirements(s.Requirements)
		}
	}
	return a
}

func parseLabels(raw string) (labels.Requirements, error) {
	sel, err := labels.Parse(raw)
	if err != nil {
		return nil, err
	}
	reqs, _ := sel.Requirements()
	return reqs, nil
}

func parseFields(raw string) (fields.Requirements, error) {
	sel, err := fields.ParseSelector(raw)
	if err != nil {
		return nil, err
	}
	return sel.Requirements(), nil
}

var labelOps = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

// labelRequirements keeps the requirements that parse, and the errors of
// those that do not.
func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var reqs labels.Requirements
	var errs []error
	for _, r := range in {
		op, ok := labelOps[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, *req)
	}
	return reqs, errors.Join(errs...)
}

var fieldOps = map[metav1.FieldSelectorOperator]struct {
	op   selection.Operator
	name string // in kube's error
}{
	metav1.FieldSelectorOpIn:    {selection.Equals, "in"},
	metav1.FieldSelectorOpNotIn: {selection.NotEquals, "not in"},
}

// fieldRequirements keeps the requirements that field selectors can
// express (In or NotIn one value), and the errors of the others.
func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var reqs fields.Requirements
	var errs []error
	for _, r := range in {
		op, ok := fieldOps[r.Operator]
		switch {
		case len(r.Values) > 1:
			errs = append(errs, errors.New("fieldSelectors do not yet support multiple values"))
		case r.Operator == metav1.FieldSelectorOpExists || r.Operator == metav1.FieldSelectorOpDoesNotExist:
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support %v", r.Operator))
		case !ok:
			errs = append(errs, fmt.Errorf("%q is not a valid field selector operator", r.Operator))
		case len(r.Values) != 1:
			errs = append(errs, fmt.Errorf("fieldSelectors %s must have one value", op.name))
		default:
			reqs = append(reqs, fields.Requirement{Field: r.Key, Operator: op.op, Value: r.Values[0]})
		}
	}
	return reqs, errors.Join(errs...)
}

// selectorErrors are the words status.evaluationError adds for the
// selectors a's authorizer could not be given whole.
func selectorErrors(a authorizer.AttributesRecord) []string {
	var out []string
	if reqs, err := a.GetFieldSelector(); err != nil {
		out = append(out, ignored("fieldSelector", len(reqs) > 0))
	}
	if reqs, err := a.GetLabelSelector(); err != nil {
		out = append(out, ignored("labelSelector", len(reqs) > 0))
	}
	return out
}

func ignored(selector string, partly bool) string {
	if partly {
		return "spec.resourceAttributes." + selector + " partially ignored due to parse error"
	}
	return "spec.resourceAttributes." + selector + " ignored due to parse error"
}
