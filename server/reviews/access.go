package reviews

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
)

var createOnly = metav1.Verbs{"create"}

func authorizationEndpoints(cfg Config) []endpoint {
	return []endpoint{
		{
			resource: metav1.APIResource{Name: "selfsubjectaccessreviews", SingularName: "selfsubjectaccessreview",
				Kind: "SelfSubjectAccessReview", Verbs: createOnly},
			newObj: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} },
			create: func(ctx context.Context, in runtime.Object) (runtime.Object, error) {
				return selfAccess(ctx, cfg.Authorizer, in)
			},
		},
		{
			resource: metav1.APIResource{Name: "selfsubjectrulesreviews", SingularName: "selfsubjectrulesreview",
				Kind: "SelfSubjectRulesReview", Verbs: createOnly},
			newObj: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} },
			create: func(ctx context.Context, in runtime.Object) (runtime.Object, error) {
				return selfRules(ctx, cfg.RuleResolver, in)
			},
		},
		{
			resource: metav1.APIResource{Name: "localsubjectaccessreviews", SingularName: "localsubjectaccessreview",
				Namespaced: true, Kind: "LocalSubjectAccessReview", Verbs: createOnly},
			newObj: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} },
			create: func(ctx context.Context, in runtime.Object) (runtime.Object, error) {
				return localSubjectAccess(ctx, cfg.Authorizer, in)
			},
		},
		{
			resource: metav1.APIResource{Name: "subjectaccessreviews", SingularName: "subjectaccessreview",
				Kind: "SubjectAccessReview", Verbs: createOnly},
			newObj: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} },
			create: func(ctx context.Context, in runtime.Object) (runtime.Object, error) {
				return subjectAccess(ctx, cfg.Authorizer, in)
			},
		},
	}
}

// requester is the user the chain authenticated; without one the chain
// is not in front, and kube answers so.
func requester(ctx context.Context) (user.Info, error) {
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	return u, nil
}

func selfAccess(ctx context.Context, a authorizer.UnconditionalAuthorizer, in runtime.Object) (runtime.Object, error) {
	sar, ok := in.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", in))
	}
	if errs := validateSelfAccess(sar); len(errs) > 0 {
		return nil, invalid("SelfSubjectAccessReview", errs)
	}
	u, err := requester(ctx)
	if err != nil {
		return nil, err
	}
	sar.Status = decide(ctx, a, attributes(u, sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
	return sar, nil
}

func subjectAccess(ctx context.Context, a authorizer.UnconditionalAuthorizer, in runtime.Object) (runtime.Object, error) {
	sar, ok := in.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %T", in))
	}
	if errs := validateSubjectAccess(sar); len(errs) > 0 {
		return nil, invalid("SubjectAccessReview", errs)
	}
	sar.Status = decide(ctx, a, attributes(subject(sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
	return sar, nil
}

// localSubjectAccess is a SubjectAccessReview confined to the namespace
// of its path, which its metadata and attributes must name, as kube's.
func localSubjectAccess(ctx context.Context, a authorizer.UnconditionalAuthorizer, in runtime.Object) (runtime.Object, error) {
	sar, ok := in.(*authorizationv1.LocalSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocalSubjectAccessReview: %T", in))
	}
	// kube's create handler takes the namespace from the path (the only
	// route here), and refuses a body that names another.
	switch ns := request.NamespaceValue(ctx); {
	case sar.Namespace == "":
		sar.Namespace = ns
	case sar.Namespace != ns:
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if errs := validateLocalSubjectAccess(sar); len(errs) > 0 {
		return nil, invalid("LocalSubjectAccessReview", errs)
	}
	sar.Status = decide(ctx, a, attributes(subject(sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
	return sar, nil
}

// subject is the user a SubjectAccessReview asks about.
func subject(spec authorizationv1.SubjectAccessReviewSpec) user.Info {
	u := &user.DefaultInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if len(spec.Extra) > 0 {
		u.Extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// attributes are what the authorizer is asked, as kube builds them: an
// empty version means every version.
func attributes(u user.Info, res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	if res == nil {
		return authorizer.AttributesRecord{User: u, Verb: nonRes.Verb, Path: nonRes.Path}
	}
	version := res.Version
	if version == "" {
		version = "*"
	}
	return withSelectors(authorizer.AttributesRecord{
		User: u, Verb: res.Verb, Namespace: res.Namespace, APIGroup: res.Group, APIVersion: version,
		Resource: res.Resource, Subresource: res.Subresource, Name: res.Name, ResourceRequest: true,
	}, res)
}

func decide(ctx context.Context, a authorizer.UnconditionalAuthorizer, attr authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	decision, reason, err := a.Authorize(ctx, attr)
	st := authorizationv1.SubjectAccessReviewStatus{
		Allowed: decision == authorizer.DecisionAllow,
		Denied:  decision == authorizer.DecisionDeny,
		Reason:  reason,
	}
	var evalErrs []string
	if err != nil {
		evalErrs = append(evalErrs, err.Error())
	}
	st.EvaluationError = strings.Join(append(evalErrs, selectorErrors(attr)...), "; ")
	return st
}
