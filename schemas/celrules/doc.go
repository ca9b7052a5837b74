// Package celrules evaluates the CEL rules of a schema
// (x-kubernetes-validations) as kube-apiserver does for a custom resource.
//
// It is a thin layer over the Kubernetes CEL stack, so that rule
// compilation, cost estimation, messages, field paths and reasons are
// kube-apiserver's own:
//
//   - the schema (kin-openapi, $refs resolved) is rewritten as an
//     apiextensions JSONSchemaProps and made structural with
//     k8s.io/apiextensions-apiserver/pkg/apiserver/schema;
//   - Compile checks every rule the way a CRD create does (compile errors,
//     per-expression and per-CRD estimated cost limits, oldSelf on
//     uncorrelatable parts of the schema, optionalOldSelf without oldSelf,
//     message, reason and fieldPath; no rule inside allOf, anyOf, oneOf or
//     not), reporting each problem with a JSON
//     pointer, then builds the apiextensions schema/cel Validator once, so
//     no rule is compiled per request;
//   - Rules.Validate runs that Validator with kube's runtime cost budget
//     per request, with the old object on update for transition rules
//     (oldSelf, optionalOldSelf) and ratcheting: an unchanged value is not
//     judged again, as kube-apiserver does since 1.33.
//
// A schema whose compiled Rules are still held somewhere (a served
// registry, a parsed CRD) is not compiled again: Compile looks them up by
// a hash of the schema as the CEL stack reads it (ruleCache, weak entries
// dropped once the Rules are freed).
//
// Rules are compiled where a schema is loaded (package schemas) and reached
// through structural.Schema.ValidateRules, so the engine needs nothing but
// the compiled schema.
package celrules
