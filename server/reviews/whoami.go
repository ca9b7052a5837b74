package reviews

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// selfSubjectReview is kubectl auth whoami: who the chain says the
// requester is, after impersonation.
func selfSubjectReview() endpoint {
	return endpoint{
		resource: metav1.APIResource{Name: "selfsubjectreviews", SingularName: "selfsubjectreview",
			Kind: "SelfSubjectReview", Verbs: createOnly},
		newObj: func() runtime.Object { return &authenticationv1.SelfSubjectReview{} },
		create: whoami,
	}
}

func whoami(ctx context.Context, in runtime.Object) (runtime.Object, error) {
	if _, ok := in.(*authenticationv1.SelfSubjectReview); !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %T", in))
	}
	u, err := requester(ctx)
	if err != nil {
		return nil, err
	}
	info := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		info.Extra = make(map[string]authenticationv1.ExtraValue, len(extra))
		for k, v := range extra {
			info.Extra[k] = v
		}
	}
	return &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now())},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: info},
	}, nil
}
