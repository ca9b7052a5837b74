package reviews

import (
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// TestSelectorAttributes: a review's selectors reach the authorizer
// parsed, as kube parses them, and those that do not parse are named in
// the evaluation error.
func TestSelectorAttributes(t *testing.T) {
	tests := map[string]struct {
		field     *authorizationv1.FieldSelectorAttributes
		label     *authorizationv1.LabelSelectorAttributes
		fields    string // the parsed requirements, as a selector
		labels    string
		evalError string
	}{
		"raw": {field: &authorizationv1.FieldSelectorAttributes{RawSelector: "spec.nodeName=n1"},
			label:  &authorizationv1.LabelSelectorAttributes{RawSelector: "team in (a,b),!old"},
			fields: "spec.nodeName=n1", labels: "!old,team in (a,b)"},
		"requirements": {
			field: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{
				{Key: "metadata.name", Operator: metav1.FieldSelectorOpNotIn, Values: []string{"x"}}}},
			label: &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{
				{Key: "team", Operator: metav1.LabelSelectorOpExists}}},
			fields: "metadata.name!=x", labels: "team"},
		"raw that does not parse": {label: &authorizationv1.LabelSelectorAttributes{RawSelector: "team in ("},
			evalError: "spec.resourceAttributes.labelSelector ignored due to parse error"},
		"some requirements that cannot be": {field: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{
			{Key: "metadata.name", Operator: metav1.FieldSelectorOpIn, Values: []string{"x"}},
			{Key: "spec.x", Operator: metav1.FieldSelectorOpExists}}},
			fields: "metadata.name=x", evalError: "spec.resourceAttributes.fieldSelector partially ignored due to parse error"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods", FieldSelector: tc.field, LabelSelector: tc.label}
			a := attributes(&user.DefaultInfo{Name: "bob"}, res, nil)
			freqs, _ := a.GetFieldSelector()
			lreqs, _ := a.GetLabelSelector()
			var fs []string
			for _, r := range freqs {
				fs = append(fs, r.Field+map[bool]string{true: "=", false: "!="}[r.Operator == "="]+r.Value)
			}
			var ls []string
			for _, r := range lreqs {
				ls = append(ls, r.String())
			}
			if got := strings.Join(fs, ","); got != tc.fields {
				t.Errorf("field requirements %q, want %q", got, tc.fields)
			}
			if got := strings.Join(ls, ","); got != tc.labels {
				t.Errorf("label requirements %q, want %q", got, tc.labels)
			}
			if got := strings.Join(selectorErrors(a), "; "); got != tc.evalError {
				t.Errorf("evaluation error %q, want %q", got, tc.evalError)
			}
		})
	}
}
