package converters

import (
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Converter converts an object to the given apiVersion ("group/version").
type Converter interface {
	Convert(obj []byte, toAPIVersion string) ([]byte, error)
}

// None converts by rewriting apiVersion only.
type None struct{}

var _ Converter = None{}

// Convert returns obj with apiVersion set to toAPIVersion. obj is returned
// unchanged, without a copy, when it already has that version.
func (None) Convert(obj []byte, toAPIVersion string) ([]byte, error) {
	if gjson.GetBytes(obj, "apiVersion").String() == toAPIVersion {
		return obj, nil
	}
	out, err := sjson.SetBytes(obj, "apiVersion", toAPIVersion)
	if err != nil {
		return nil, fmt.Errorf("converters: set apiVersion: %w", err)
	}
	return out, nil
}
