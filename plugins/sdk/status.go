package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
)

// StatusError is a failed call to specd, with the Kubernetes Status it
// answered.
type StatusError struct {
	Code    int32  // the HTTP status code, as 404
	Reason  string // the Status reason, as "NotFound"
	Message string
	// Status is the whole metav1.Status, JSON (its details name the
	// object and the causes of an Invalid).
	Status []byte
}

func (e *StatusError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("%d %s", e.Code, e.Reason)
}

// statusError decodes a Status carried by a Host response; nil for none.
func statusError(raw []byte) error {
	if len(raw) == 0 {
		return nil
	}
	var st struct {
		Code    int32  `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return &StatusError{Code: 500, Reason: "InternalError", Message: fmt.Sprintf("undecodable status from specd: %v", err), Status: raw}
	}
	return &StatusError{Code: st.Code, Reason: st.Reason, Message: st.Message, Status: raw}
}

// ReasonOf is the Status reason of err, "" when err is not a *StatusError.
func ReasonOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Reason
	}
	return ""
}

// CodeOf is the HTTP code of err, 0 when err is not a *StatusError.
func CodeOf(err error) int32 {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// isReason matches by reason, or by code (if not 0) when specd gave no
// reason, as k8s.io/apimachinery's errors.Is* do.
func isReason(err error, reason string, code int32) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	if se.Reason != "" {
		return se.Reason == reason
	}
	return code != 0 && se.Code == code
}

// IsNotFound: the object does not exist (404).
func IsNotFound(err error) bool { return isReason(err, "NotFound", 404) }

// IsAlreadyExists: an object of that name exists (409).
func IsAlreadyExists(err error) bool { return isReason(err, "AlreadyExists", 0) }

// IsConflict: the object changed since it was read (409): read it again
// and retry.
func IsConflict(err error) bool { return isReason(err, "Conflict", 409) }

// IsInvalid: the object failed validation (422).
func IsInvalid(err error) bool { return isReason(err, "Invalid", 422) }

// IsForbidden: the write is not allowed (403).
func IsForbidden(err error) bool { return isReason(err, "Forbidden", 403) }
