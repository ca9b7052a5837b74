package crdobject

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// AllowBreakingAnnotation, set to "true" on a CRD, lets an update of it
// that breaks its clients or stored objects through the compatibility
// gate, as x-specd.allowBreaking does for a schema file.
const AllowBreakingAnnotation = "specd.io/allow-breaking"

// ErrUnsupported is returned (wrapped, as a *FieldError) for what a CRD
// may say and specd does not serve.
var ErrUnsupported = errors.New("crdobject: not supported")

// CRD is the part of a CustomResourceDefinition that declares its
// resource.
type CRD struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec Spec `json:"spec"`
}

// Spec is a CRD's spec.
type Spec struct {
	Group      string    `json:"group"`
	Names      Names     `json:"names"`
	Scope      string    `json:"scope"`
	Versions   []Version `json:"versions"`
	Conversion *struct {
		Strategy string `json:"strategy"`
	} `json:"conversion"`
}

// Names are a CRD's spec.names (and status.acceptedNames).
type Names struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// Version is one of a CRD's spec.versions.
type Version struct {
	Name               string  `json:"name"`
	Served             bool    `json:"served"`
	Storage            bool    `json:"storage"`
	Deprecated         bool    `json:"deprecated"`
	DeprecationWarning *string `json:"deprecationWarning"`
	Schema             *struct {
		OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
	} `json:"schema"`
	Subresources *struct {
		Status map[string]any `json:"status"`
		Scale  map[string]any `json:"scale"`
	} `json:"subresources"`
	AdditionalPrinterColumns []any `json:"additionalPrinterColumns"`
	SelectableFields         []any `json:"selectableFields"`
}

// FieldError is a CRD field that cannot be turned into a document.
type FieldError struct {
	Field  string // such as spec.conversion.strategy
	Value  string
	Detail string
	err    error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Detail }
func (e *FieldError) Unwrap() error { return e.err }

// Decode reads a CRD object (JSON).
func Decode(data []byte) (*CRD, error) {
	var c CRD
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("crdobject: decode: %w", err)
	}
	return &c, nil
}

// Owner is the Declared.Owner of a CRD's documents.
func Owner(name string) string { return "customresourcedefinition " + name }

// Documents returns the documents c declares, one per version.
func Documents(c *CRD) ([]schemas.Declared, error) {
	if err := supported(c); err != nil {
		return nil, err
	}
	out := make([]schemas.Declared, 0, len(c.Spec.Versions))
	for i, v := range c.Spec.Versions {
		data, err := json.Marshal(document(c, v))
		if err != nil {
			return nil, fmt.Errorf("crdobject: %s: %w", c.Metadata.Name, err)
		}
		out = append(out, schemas.Declared{Name: docName(c.Metadata.Name, i), Data: data, Owner: Owner(c.Metadata.Name)})
	}
	return out, nil
}

// supported refuses what specd does not serve from a CRD.
func supported(c *CRD) error {
	if cv := c.Spec.Conversion; cv != nil && cv.Strategy != "" && cv.Strategy != "None" {
		return &FieldError{Field: "spec.conversion.strategy", Value: cv.Strategy, err: ErrUnsupported,
			Detail: "specd does not call conversion webhooks; use strategy None, or declare the resource in a schema file with specd's conversion rules (docs/conversion.md)"}
	}
	if lk := c.Spec.Names.ListKind; lk != "" && lk != c.Spec.Names.Kind+"List" {
		return &FieldError{Field: "spec.names.listKind", Value: lk, err: ErrUnsupported,
			Detail: fmt.Sprintf("specd serves the list kind %sList", c.Spec.Names.Kind)}
	}
	return nil
}

// docName is the Declared.Name of version i of the CRD named name.
func docName(name string, i int) string {
	return fmt.Sprintf("customresourcedefinition %s spec.versions[%d]", name, i)
}

func document(c *CRD, v Version) map[string]any {
	specd := map[string]any{"group": c.Spec.Group}
	if strings.EqualFold(c.Metadata.Annotations[AllowBreakingAnnotation], "true") {
		specd["allowBreaking"] = true
	}
	schema := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		schema = copyMap(v.Schema.OpenAPIV3Schema)
	}
	schema["x-specd-resource"] = resourceExt(c, v)
	return map[string]any{
		"openapi":    "3.0.3",
		"info":       map[string]any{"title": c.Metadata.Name, "version": v.Name},
		"x-specd":    specd,
		"components": map[string]any{"schemas": map[string]any{c.Spec.Names.Kind: schema}},
	}
}

// resourceExt is the x-specd-resource of version v.
func resourceExt(c *CRD, v Version) map[string]any {
	n := c.Spec.Names
	ext := map[string]any{"kind": n.Kind, "plural": n.Plural, "scope": c.Spec.Scope, "storage": v.Storage, "served": v.Served}
	set := func(key string, value any, ok bool) {
		if ok {
			ext[key] = value
		}
	}
	set("singular", n.Singular, n.Singular != "")
	set("shortNames", n.ShortNames, len(n.ShortNames) > 0)
	set("categories", n.Categories, len(n.Categories) > 0)
	set("deprecated", true, v.Deprecated)
	set("deprecationWarning", v.DeprecationWarning, v.DeprecationWarning != nil)
	set("printerColumns", v.AdditionalPrinterColumns, len(v.AdditionalPrinterColumns) > 0)
	set("selectableFields", v.SelectableFields, len(v.SelectableFields) > 0)
	if s := v.Subresources; s != nil && (s.Status != nil || s.Scale != nil) {
		sub := map[string]any{}
		set := func(key string, value map[string]any) {
			if value != nil {
				sub[key] = value
			}
		}
		set("status", s.Status)
		set("scale", s.Scale)
		ext["subresources"] = sub
	}
	return ext
}

// copyMap copies the top of m: document adds x-specd-resource to it.
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
