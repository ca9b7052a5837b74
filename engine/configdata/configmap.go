package configdata

import (
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/plugins/hook"
)

// mutateConfigMap decodes a written ConfigMap as kube-apiserver does:
// binaryData is base64; empty maps are dropped.
func mutateConfigMap(_ string, obj map[string]any) ([]string, error) {
	if m, ok := obj["data"].(map[string]any); ok && len(m) == 0 {
		delete(obj, "data")
	}
	_, err := canonicalBytes(obj, "binaryData")
	return nil, err
}

// checkConfigMap validates a ConfigMap about to be stored, and its
// change from the stored one on update, as kube's
// ValidateConfigMap(Update) does.
func checkConfigMap(_ context.Context, ar hook.AdmissionRequest) error {
	return check(ar, "ConfigMap", func(cm, old *corev1.ConfigMap) field.ErrorList {
		var errs field.ErrorList
		if old != nil {
			errs = configMapUpdateErrors(cm, old)
		}
		return append(errs, configMapErrors(cm)...)
	})
}

// configMapUpdateErrors are the rules of an immutable ConfigMap's update.
func configMapUpdateErrors(cm, old *corev1.ConfigMap) field.ErrorList {
	if old.Immutable == nil || !*old.Immutable {
		return nil
	}
	var errs field.ErrorList
	if cm.Immutable == nil || !*cm.Immutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
	}
	if !maps.Equal(cm.Data, old.Data) {
		errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
	}
	if !sameBytes(cm.BinaryData, old.BinaryData) {
		errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableMsg))
	}
	return errs
}

// configMapErrors are kube's rules for a ConfigMap's keys and size.
func configMapErrors(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	dataPath, binaryPath := field.NewPath("data"), field.NewPath("binaryData")
	total := 0
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		errs = append(errs, keyErrors(dataPath, []string{k})...)
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, "duplicate of key present in binaryData"))
		}
		total += len(cm.Data[k])
	}
	errs = append(errs, keyErrors(binaryPath, slices.Sorted(maps.Keys(cm.BinaryData)))...)
	for _, v := range cm.BinaryData {
		total += len(v)
	}
	if total > maxSize {
		// kube's path "": the whole object.
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxSize))
	}
	return errs
}

// keyErrors are kube's errors for keys that are not valid config keys.
func keyErrors(path *field.Path, keys []string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range keys {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msg))
		}
	}
	return errs
}
