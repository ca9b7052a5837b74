package crd

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/schemas"
)

// Group, Version and the resource, as the built-in schema file declares
// them.
const (
	Group   = "apiextensions.k8s.io"
	Version = "v1"
	Plural  = "customresourcedefinitions"
)

// CleanupFinalizer holds a deleted CRD until its objects are gone.
const CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// FieldManager names the Controller's writes in managedFields.
const FieldManager = "specd-crd-controller"

var resource = schema.GroupResource{Group: Group, Resource: Plural}

// Key is the CRD resource's key in engine.Options (plural.group).
var Key = resource.String()

// Resource is the served CRD resource version in reg, nil when it is not
// served (disabled).
func Resource(reg *schemas.Registry) *schemas.ResourceVersion {
	return reg.Lookup(Group, Version, Plural)
}
