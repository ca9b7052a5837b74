package reviews

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// selfRules answers kubectl auth can-i --list: the requester's rules in
// a namespace, or, with no resolver, an empty list marked incomplete.
func selfRules(ctx context.Context, rr authorizer.RuleResolver, in runtime.Object) (runtime.Object, error) {
	review, ok := in.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", in))
	}
	u, err := requester(ctx)
	if err != nil {
		return nil, err
	}
	if review.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	st := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{}, Incomplete: true,
	}
	if rr != nil {
		res, nonRes, incomplete, err := rr.RulesFor(ctx, u, review.Spec.Namespace)
		st = rulesStatus(res, nonRes, incomplete)
		if err != nil {
			st.EvaluationError = err.Error()
		}
	}
	review.Status = st
	return review, nil
}

func rulesStatus(res []authorizer.ResourceRuleInfo, nonRes []authorizer.NonResourceRuleInfo, incomplete bool) authorizationv1.SubjectRulesReviewStatus {
	st := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    make([]authorizationv1.ResourceRule, 0, len(res)),
		NonResourceRules: make([]authorizationv1.NonResourceRule, 0, len(nonRes)),
		Incomplete:       incomplete,
	}
	for _, r := range res {
		st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{
			Verbs: r.GetVerbs(), APIGroups: r.GetAPIGroups(), Resources: r.GetResources(), ResourceNames: r.GetResourceNames(),
		})
	}
	for _, r := range nonRes {
		st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{
			Verbs: r.GetVerbs(), NonResourceURLs: r.GetNonResourceURLs(),
		})
	}
	return st
}
