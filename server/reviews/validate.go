package reviews

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks and their words are kube's (pkg/apis/authorization/validation).

func validateAttributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	if res != nil && nonRes != nil {
		errs = append(errs, field.Invalid(spec.Child("nonResourceAttributes"), nonRes, `cannot be specified in combination with resourceAttributes`))
	}
	if res == nil && nonRes == nil {
		errs = append(errs, field.Invalid(spec.Child("resourceAttributes"), nonRes, `exactly one of nonResourceAttributes or resourceAttributes must be specified`))
	}
	return errs
}

func validateSelfAccess(sar *authorizationv1.SelfSubjectAccessReview) field.ErrorList {
	errs := validateAttributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, field.NewPath("spec"))
	errs = append(errs, validateSelectors(sar.Spec.ResourceAttributes)...)
	return append(errs, emptyMetadata(sar.ObjectMeta)...)
}

func validateSubjectAccess(sar *authorizationv1.SubjectAccessReview) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateAttributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, spec)
	if sar.Spec.User == "" && len(sar.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(spec.Child("user"), sar.Spec.User, `at least one of user or group must be specified`))
	}
	errs = append(errs, validateSelectors(sar.Spec.ResourceAttributes)...)
	return append(errs, emptyMetadata(sar.ObjectMeta)...)
}

func validateLocalSubjectAccess(sar *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateAttributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, spec)
	if sar.Spec.User == "" && len(sar.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(spec.Child("user"), sar.Spec.User, `at least one of user or group must be specified`))
	}
	errs = append(errs, validateSelectors(sar.Spec.ResourceAttributes)...)
	meta := sar.ObjectMeta
	meta.Namespace, meta.ManagedFields = "", nil
	if !apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, meta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), sar.ObjectMeta, `must be empty except for namespace`))
	}
	if res := sar.Spec.ResourceAttributes; res != nil && res.Namespace != sar.Namespace {
		errs = append(errs, field.Invalid(spec.Child("resourceAttributes", "namespace"), res.Namespace, `must match metadata.namespace`))
	}
	if sar.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(spec.Child("nonResourceAttributes"), sar.Spec.NonResourceAttributes, `disallowed on this kind of request`))
	}
	return errs
}

// emptyMetadata refuses any metadata but managed fields, which clients
// that apply send along.
func emptyMetadata(meta metav1.ObjectMeta) field.ErrorList {
	meta.ManagedFields = nil
	if apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, meta) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata"), meta, `must be empty`)}
}

func invalid(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: kind}, "", errs)
}
