package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/schemas"
)

// defaultStored applies to stored bytes of r the defaults of the schema
// of the version they are stored in, as kube-apiserver does when it
// reads an object from storage: an object stored before a default was
// added to its schema reads with the default. Nothing is written back;
// the next write of the object stores it. Only objects that lack a
// default are decoded (structural.Schema.NeedsDefaults).
func defaultStored(r *schemas.Resource, obj []byte) ([]byte, error) {
	sr := r.StorageResource()
	if !anyDefaults(sr) {
		return obj, nil // most resources: no read of the object at all
	}
	sv := storedVersion(sr, gjson.GetBytes(obj, "apiVersion").Str)
	if sv == nil || sv.Schema == nil || !sv.Schema.NeedsDefaults(obj) {
		return obj, nil
	}
	m, _, err := decodeObject(obj)
	if err != nil {
		return nil, fmt.Errorf("engine: decode a stored %s to default it: %w", r.GroupResource(), err)
	}
	sv.Schema.DefaultRead(m)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("engine: encode a defaulted %s: %w", r.GroupResource(), err)
	}
	return out, nil
}

// storedVersion is the version of r that apiVersion names, nil when it
// names none of r's.
func storedVersion(r *schemas.Resource, apiVersion string) *schemas.ResourceVersion {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	if group != r.Group {
		return nil
	}
	return r.Version(version)
}

// anyDefaults reports whether a version of r defaults a field.
func anyDefaults(r *schemas.Resource) bool {
	for _, v := range r.Versions {
		if v.Schema != nil && v.Schema.HasDefaults() {
			return true
		}
	}
	return false
}
