package configdata

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/plugins/hook"
)

// immutableMsg is kube's message for a change to an immutable object.
const immutableMsg = "field is immutable when `immutable` is set"

// mutateSecret decodes a written Secret as kube-apiserver does: data is
// base64, stringData is merged into it and dropped, type defaults to
// Opaque.
func mutateSecret(_ string, obj map[string]any) ([]string, error) {
	data, err := canonicalBytes(obj, "data")
	if err != nil {
		return nil, err
	}
	mergeStringData(obj, data)
	if t, ok := obj["type"]; !ok || t == nil || t == "" {
		obj["type"] = string(corev1.SecretTypeOpaque)
	}
	return tlsWarnings(obj), nil
}

// mergeStringData writes each stringData value into data, base64-encoded
// (stringData wins), and drops stringData. A stringData that is not a
// map of strings is left for the schema to refuse.
func mergeStringData(obj, data map[string]any) {
	sd, ok := obj["stringData"].(map[string]any)
	if !ok {
		if obj["stringData"] == nil {
			delete(obj, "stringData")
		}
		return
	}
	for _, v := range sd {
		if _, ok := v.(string); !ok {
			return
		}
	}
	if len(sd) > 0 && data == nil {
		data = map[string]any{}
		obj["data"] = data
	}
	for k, v := range sd {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
	}
	delete(obj, "stringData")
}

// tlsWarnings is kube's warning for a TLS Secret whose certificate and
// key do not make a pair.
func tlsWarnings(obj map[string]any) []string {
	if obj["type"] != string(corev1.SecretTypeTLS) {
		return nil
	}
	data, _ := obj["data"].(map[string]any)
	crt, _ := data[corev1.TLSCertKey].(string)
	key, _ := data[corev1.TLSPrivateKeyKey].(string)
	c, _ := base64.StdEncoding.DecodeString(crt)
	k, _ := base64.StdEncoding.DecodeString(key)
	if _, err := tls.X509KeyPair(c, k); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// checkSecret validates a Secret about to be stored, and its change from
// the stored one on update, as kube's ValidateSecret(Update) does.
func checkSecret(_ context.Context, ar hook.AdmissionRequest) error {
	return check(ar, "Secret", func(s, old *corev1.Secret) field.ErrorList {
		var errs field.ErrorList
		if old != nil {
			errs = secretUpdateErrors(s, old)
		}
		return append(errs, secretErrors(s)...)
	})
}

// secretUpdateErrors are the rules of a Secret's update: type never
// changes, nor does an immutable Secret's data.
func secretUpdateErrors(s, old *corev1.Secret) field.ErrorList {
	errs := apivalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))
	if old.Immutable == nil || !*old.Immutable {
		return errs
	}
	if s.Immutable == nil || !*s.Immutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
	}
	if !sameBytes(s.Data, old.Data) {
		errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
	}
	return errs
}

// secretErrors are kube's rules for a Secret's data: key names, size,
// and what its type requires.
func secretErrors(s *corev1.Secret) field.ErrorList {
	dataPath := field.NewPath("data")
	errs := keyErrors(dataPath, slices.Sorted(maps.Keys(s.Data)))
	total := 0
	for _, v := range s.Data {
		total += len(v)
	}
	if total > maxSize {
		errs = append(errs, field.TooLong(dataPath, "", maxSize))
	}
	return append(errs, typeErrors(s, dataPath)...)
}

// typeErrors are the keys and annotations each Secret type requires.
func typeErrors(s *corev1.Secret, dataPath *field.Path) field.ErrorList {
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), "")}
		}
	case corev1.SecretTypeDockercfg:
		return jsonKeyErrors(s.Data, dataPath, corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		return jsonKeyErrors(s.Data, dataPath, corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			return field.ErrorList{field.Required(dataPath.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(dataPath.Key(corev1.BasicAuthPasswordKey), "")}
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			return field.ErrorList{field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), "")}
		}
	case corev1.SecretTypeTLS:
		return requiredKeys(s.Data, dataPath, corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	return nil
}

// jsonKeyErrors requires data[key], holding a JSON object.
func jsonKeyErrors(data map[string][]byte, dataPath *field.Path, key string) field.ErrorList {
	b, ok := data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(b, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error())}
	}
	return nil
}

// requiredKeys requires each of keys in data.
func requiredKeys(data map[string][]byte, dataPath *field.Path, keys ...string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range keys {
		if _, ok := data[k]; !ok {
			errs = append(errs, field.Required(dataPath.Key(k), ""))
		}
	}
	return errs
}

// check decodes the object of ar (and the stored one, on update: old is
// nil on create) and answers kube's 422 Invalid for what rules finds.
func check[T any](ar hook.AdmissionRequest, kind string, rules func(obj, old *T) field.ErrorList) error {
	var obj, stored T
	if err := decode(ar.Object, &obj); err != nil {
		return err
	}
	var old *T
	if ar.OldObject != nil {
		if err := decode(ar.OldObject, &stored); err != nil {
			return err
		}
		old = &stored
	}
	if errs := rules(&obj, old); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Kind: kind}, ar.Name, errs)
	}
	return nil
}

// decode decodes an object the engine is about to store; it passed the
// schema and the Mutator, so a failure is specd's, not the client's.
func decode(b []byte, into any) error {
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("configdata: decode %T: %w", into, err)
	}
	return nil
}
