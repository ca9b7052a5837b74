package engine

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/schemas"
)

// conversion converts stored objects between the versions of their
// resource, with the rules of the registry snapshot each resource belongs
// to.
type conversion struct {
	// converter converts when converterFor does not know the resource.
	converter converters.Converter
	// converterFor, when set, is the converter of a resource's registry
	// snapshot (Options.Converters).
	converterFor func(*schemas.Resource) converters.Converter
}

// of returns the converter of r's registry snapshot.
func (c conversion) of(r *schemas.Resource) converters.Converter {
	if c.converterFor != nil {
		if conv := c.converterFor(r); conv != nil {
			return conv
		}
	}
	return c.converter
}

// toVersion converts stored bytes to rv's version as a client sees them:
// without the conversion bookkeeping (bookkeeping.go).
func (c conversion) toVersion(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	out, err := c.convertStored(rv, obj)
	if err != nil {
		return nil, err
	}
	return hideBookkeeping(out)
}

// convertStored converts stored bytes to rv's version. They are usually in
// the storage version, but an object written before the storage version
// changed is in the one it was written in until the migration
// (engine/migrate) rewrites it: the object's own apiVersion says which.
// The defaults of the version they are stored in apply first
// (defaultStored).
func (c conversion) convertStored(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	obj, err := defaultStored(rv.Resource, obj)
	if err != nil {
		return nil, err
	}
	if rv.Resource.StorageVersion == "" || storedIn(obj, rv.APIVersion()) {
		return obj, nil
	}
	out, err := c.of(rv.Resource).Convert(obj, rv.APIVersion())
	if err != nil {
		return nil, fmt.Errorf("engine: convert to %s: %w", rv.APIVersion(), err)
	}
	return out, nil
}

// storedIn reports whether obj's apiVersion is apiVersion.
func storedIn(obj []byte, apiVersion string) bool {
	return gjson.GetBytes(obj, "apiVersion").Str == apiVersion
}

// toStorage converts an object in rv's version to the storage version.
// The storage version may be of another resource, and group, whose
// storage rv's resource serves (schemas.Resource.StoredWith).
func (c conversion) toStorage(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	r := rv.Resource
	if r.StorageVersion == "" || r.StoredWith == nil && rv.Version == r.StorageVersion {
		return obj, nil
	}
	sv := r.StorageAPIVersion()
	out, err := c.of(r).Convert(obj, sv)
	if err != nil {
		return nil, fmt.Errorf("engine: convert to storage version %s: %w", sv, err)
	}
	return out, nil
}

// storedForUpdate converts stored bytes to rv's version and splits off the
// bookkeeping: the object as its client sees it, and the annotation's
// value ("" for none) to put back on what the client writes.
func (c conversion) storedForUpdate(rv *schemas.ResourceVersion, value []byte) ([]byte, string, error) {
	obj, err := c.convertStored(rv, value)
	if err != nil {
		return nil, "", err
	}
	return splitBookkeeping(obj)
}
