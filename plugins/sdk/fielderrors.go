package sdk

import (
	"encoding/json"
	"fmt"
	"strings"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// FieldError is one problem with one field. specd answers the client with
// 422 Invalid and one cause per FieldError, as for the schema's own errors.
// Build it with Invalid, Required, Forbidden, NotSupported, Duplicate or
// Immutable.
type FieldError struct {
	// Type is a k8s.io/apimachinery field.ErrorType, as
	// "FieldValueInvalid".
	Type string
	// Field is the path of the field, as "spec.replicas".
	Field   string
	Message string
	// Value is the bad value, encoded with encoding/json; nil shows none.
	Value any
}

// FieldErrors is what a ValidateFunc answers.
type FieldErrors []FieldError

// Invalid: the value of field is wrong, for the reason in msg.
func Invalid(field string, value any, msg string) FieldError {
	return FieldError{Type: "FieldValueInvalid", Field: field, Value: value, Message: msg}
}

// Immutable: field may not change once set.
func Immutable(field string, value any) FieldError {
	return Invalid(field, value, "field is immutable")
}

// Required: field must be set.
func Required(field, msg string) FieldError {
	return FieldError{Type: "FieldValueRequired", Field: field, Message: msg}
}

// Forbidden: field may not be set (here, now, by this request).
func Forbidden(field, msg string) FieldError {
	return FieldError{Type: "FieldValueForbidden", Field: field, Message: msg}
}

// NotSupported: value is none of the supported values.
func NotSupported(field string, value any, supported ...string) FieldError {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return FieldError{Type: "FieldValueNotSupported", Field: field, Value: value,
		Message: "supported values: " + strings.Join(quoted, ", ")}
}

// Duplicate: value appears twice where it must be unique.
func Duplicate(field string, value any) FieldError {
	return FieldError{Type: "FieldValueDuplicate", Field: field, Value: value}
}

// Error makes a FieldError usable as an error in a plugin's own code.
func (e FieldError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Type)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

func (e FieldError) proto() (*pluginv1.FieldError, error) {
	pfe := &pluginv1.FieldError{Type: e.Type, Field: e.Field, Message: e.Message}
	if pfe.Type == "" {
		pfe.Type = "FieldValueInvalid"
	}
	if e.Value != nil {
		v, err := json.Marshal(e.Value)
		if err != nil {
			return nil, fmt.Errorf("field error at %s: value: %w", e.Field, err)
		}
		pfe.Value = v
	}
	return pfe, nil
}
