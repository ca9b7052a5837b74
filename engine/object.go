package engine

import (
	"fmt"
	"strconv"

	"github.com/specd-io/specd/engine/internal/jsontree"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/schemas"
)

// appendWithResourceVersion appends obj to dst with
// metadata.resourceVersion set to rev. Stored objects never carry a
// resourceVersion, so it is inserted as the first metadata field without
// decoding or copying the object more than once.
func appendWithResourceVersion(dst, obj []byte, rev int64) ([]byte, error) {
	if len(obj) == 0 {
		return nil, fmt.Errorf("engine: empty object")
	}
	md := gjson.GetBytes(obj, "metadata")
	if !md.IsObject() || md.Index <= 0 {
		out, err := sjson.SetBytes(obj, "metadata.resourceVersion", strconv.FormatInt(rev, 10))
		if err != nil {
			return nil, fmt.Errorf("engine: set resourceVersion: %w", err)
		}
		return append(dst, out...), nil
	}
	open := md.Index + 1 // just after the metadata object's '{'
	dst = append(dst, obj[:open]...)
	dst = append(dst, `"resourceVersion":"`...)
	dst = strconv.AppendInt(dst, rev, 10)
	dst = append(dst, '"')
	if !emptyObject(md.Raw) {
		dst = append(dst, ',')
	}
	return append(dst, obj[open:]...), nil
}

// toVersion converts stored bytes to rv's version as a client sees them:
// without the conversion bookkeeping (bookkeeping.go).
func (s *Store) toVersion(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	out, err := s.convertStored(rv, obj)
	if err != nil {
		return nil, err
	}
	return hideBookkeeping(out)
}

// convertStored converts stored bytes to rv's version. They are usually in
// the storage version, but an object written before the storage version
// changed is in the one it was written in until the migration
// (engine/migrate) rewrites it: the object's own apiVersion says which.
func (s *Store) convertStored(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	if rv.Resource.StorageVersion == "" || storedIn(obj, rv.APIVersion()) {
		return obj, nil
	}
	out, err := s.converterOf(rv.Resource).Convert(obj, rv.APIVersion())
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
func (s *Store) toStorage(rv *schemas.ResourceVersion, obj []byte) ([]byte, error) {
	r := rv.Resource
	if r.StorageVersion == "" || r.StoredWith == nil && rv.Version == r.StorageVersion {
		return obj, nil
	}
	sv := r.StorageAPIVersion()
	out, err := s.converterOf(r).Convert(obj, sv)
	if err != nil {
		return nil, fmt.Errorf("engine: convert to storage version %s: %w", sv, err)
	}
	return out, nil
}

// encode is the one encoding of a prepared object; sizeHint is the size of
// the body it came from.
func encode(obj map[string]any, sizeHint int) ([]byte, error) {
	out, err := jsontree.Append(make([]byte, 0, sizeHint+256), obj)
	if err != nil {
		return nil, fmt.Errorf("engine: encode object: %w", err)
	}
	return out, nil
}

// emptyObject reports whether raw, a JSON object, has no members.
func emptyObject(raw string) bool {
	for i := 1; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
		case '}':
			return true
		default:
			return false
		}
	}
	return true
}
