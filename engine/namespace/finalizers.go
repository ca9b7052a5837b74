package namespace

import (
	"context"
	"strings"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins/hook"
)

// WriteChecks are the engine.Options.WriteChecks of Namespaces: the names
// in spec.finalizers are checked as kube's ValidateNamespace does.
func WriteChecks() map[string]engine.WriteCheck {
	return map[string]engine.WriteCheck{resource.String(): checkFinalizers}
}

// standardFinalizers are the names kube allows without a domain
// (core/helper.IsStandardFinalizerName).
var standardFinalizers = map[string]bool{
	string(corev1.FinalizerKubernetes): true,
	metav1.FinalizerOrphanDependents:   true,
	metav1.FinalizerDeleteDependents:   true,
}

// checkFinalizers refuses a Namespace whose spec.finalizers has a name
// that is not a qualified name, or has no domain and is not standard.
// Errors are at spec.finalizers on the object, at each index through the
// finalize subresource, as kube reports them.
func checkFinalizers(_ context.Context, ar hook.AdmissionRequest) error {
	path := field.NewPath("spec", "finalizers")
	var errs field.ErrorList
	for i, f := range gjson.GetBytes(ar.Object, "spec.finalizers").Array() {
		at := path
		if ar.Subresource == FinalizeSubresource {
			at = path.Index(i)
		}
		errs = append(errs, finalizerNameErrors(f.String(), at)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: Group, Kind: "Namespace"}, ar.Name, errs)
}

// finalizerNameErrors are kube's rules for a finalizer name.
func finalizerNameErrors(name string, at *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(at, name, msg))
	}
	if !strings.Contains(name, "/") && !standardFinalizers[name] {
		errs = append(errs, field.Invalid(at, name, "name is neither a standard finalizer name nor is it fully qualified"))
	}
	return errs
}
