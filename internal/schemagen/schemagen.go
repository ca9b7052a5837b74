package schemagen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Options say how many resources to write.
type Options struct {
	// Groups is the number of group versions (one file each, in a folder
	// per group); KindsPerGroup the resources each declares.
	Groups        int
	KindsPerGroup int
}

// Standard is the scale: 1,000 resources across 200 group
// versions.
var Standard = Options{Groups: 200, KindsPerGroup: 5}

// Write writes the schema files into dir (created if needed) and returns
// their paths. Every resource is namespaced, stored in v1, and has a spec
// of a dozen fields of various types, a status subresource and printer
// columns, about the size of a small real CRD.
func Write(dir string, o Options) ([]string, error) {
	var paths []string
	for g := range o.Groups {
		p := filepath.Join(dir, Group(g), "v1.yaml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(File(g, o.KindsPerGroup, "")), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Group is the name of the g-th group.
func Group(g int) string { return fmt.Sprintf("g%03d.bench.example.com", g) }

// Kind is the name of the k-th kind of a group.
func Kind(k int) string { return fmt.Sprintf("Kind%02d", k) }

// File is the schema file of group g with kinds resources; extra is
// spliced into every spec's properties (indented 12 spaces), so that a
// benchmark can change a file.
func File(g, kinds int, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `openapi: 3.0.3
info:
  title: Generated group %d
  version: v1
x-specd:
  group: %s
components:
  schemas:
`, g, Group(g))
	for k := range kinds {
		fmt.Fprintf(&b, `    %s:
      type: object
      description: Generated kind %d of group %d.
      x-specd-resource:
        subresources:
          status: {}
        printerColumns:
          - {name: Size, type: integer, jsonPath: .spec.size}
          - {name: Phase, type: string, jsonPath: .status.phase}
      properties:
        spec:
          type: object
          required: [size]
          properties:
            size: {type: integer, minimum: 0, maximum: 1000}
            name: {type: string, maxLength: 63}
            color: {type: string, enum: [red, green, blue]}
            enabled: {type: boolean, default: true}
            ratio: {type: number}
            tags:
              type: array
              items: {type: string}
            labels:
              type: object
              additionalProperties: {type: string}
            owner:
              type: object
              properties:
                name: {type: string}
                email: {type: string, format: email}
            schedule: {type: string, pattern: '^[0-9*/ ,-]+$'}
            replicas: {type: integer, format: int32, default: 1}
%s        status:
          type: object
          properties:
            phase: {type: string}
            observedGeneration: {type: integer, format: int64}
`, Kind(k), k, g, extra)
	}
	return b.String()
}
