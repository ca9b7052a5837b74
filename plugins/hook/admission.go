package hook

import "context"

// Admission calls the plugins that a schema's x-specd-hooks binds for
// defaulting and validation.
//
// An error means the plugin could not answer (it is missing, did not
// start, crashed, timed out, or its own function failed): the binding's
// failurePolicy decides what the write does then. A validation plugin's
// verdict on the object is its field errors, not an error.
type Admission interface {
	// Default returns the object as the plugin defaulted it.
	Default(ctx context.Context, plugin string, req AdmissionRequest) ([]byte, error)
	// Validate returns the object's field errors; none allows the write.
	Validate(ctx context.Context, plugin string, req AdmissionRequest) ([]FieldError, error)
}

// The operations an AdmissionRequest names, as Kubernetes admission names
// them.
const (
	OperationCreate = "CREATE"
	OperationUpdate = "UPDATE"
)

// AdmissionRequest is what a defaulting or validation plugin is told about
// one write.
type AdmissionRequest struct {
	Group, Version, Kind, Resource string
	Namespace, Name                string
	Operation                      string // OperationCreate or OperationUpdate
	// Subresource is "status" or "scale" for a write to that subresource,
	// as Kubernetes admission reports it; "" otherwise.
	Subresource string
	// Object is the object as it will be written: in the request's version
	// for Default, in the storage version for Validate. OldObject is the
	// stored object, in the same version, on UPDATE; nil on CREATE.
	Object    []byte
	OldObject []byte
	DryRun    bool
	// UserInfo is who asked for the write, as Kubernetes admission tells
	// it; its zero value when the request carried no user.
	UserInfo UserInfo
}

// UserInfo is an authenticated user, as k8s.io/api/authentication/v1
// UserInfo describes one.
type UserInfo struct {
	Username, UID string
	Groups        []string
	Extra         map[string][]string
}

// FieldError is one problem a validation plugin found. Type is a
// k8s.io/apimachinery/pkg/util/validation/field ErrorType
// ("FieldValueInvalid", "FieldValueRequired", ...), Field a path such as
// "spec.replicas", Value the JSON of the bad value ("" for none).
type FieldError struct {
	Type, Field, Message, Value string
}
