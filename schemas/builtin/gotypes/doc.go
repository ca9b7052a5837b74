// Package gotypes holds the Go types k8s.io/api and
// k8s.io/apiextensions-apiserver generate for the built-in kinds that have
// them (core/v1, coordination.k8s.io/v1, events.k8s.io/v1,
// rbac.authorization.k8s.io/v1, apiextensions.k8s.io/v1), in one
// runtime.Scheme built once.
//
// specd's objects are JSON bytes, described by their schema files
// (schemas/builtin); these types are used only where a wire format is
// defined by them and nothing else: reading a protobuf body (server), and
// the patch metadata of a strategic merge patch (the patchStrategy and
// patchMergeKey tags of each field), which the engine gets through
// engine.Options.StrategicPatchMeta. A kind the Scheme does not hold has
// neither.
package gotypes
