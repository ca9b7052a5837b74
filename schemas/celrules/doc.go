// Package celrules evaluates the CEL rules of a schema
// (x-kubernetes-validations) as kube-apiserver does for a custom resource.
//
// It is built on the Kubernetes CEL stack, so that rule compilation, cost
// estimation, messages, field paths and reasons are kube-apiserver's:
//
//   - the schema (kin-openapi, $refs resolved) is rewritten as an
//     apiextensions JSONSchemaProps and made structural with
//     k8s.io/apiextensions-apiserver/pkg/apiserver/schema;
//   - Compile checks every rule the way a CRD create does (compile errors,
//     per-expression and per-CRD estimated cost limits, oldSelf on
//     uncorrelatable parts of the schema, optionalOldSelf without oldSelf,
//     message, reason and fieldPath; no rule inside allOf, anyOf, oneOf or
//     not), reporting each problem with a JSON pointer, then compiles the
//     programs once with kube's schema/cel Compile, in the environment and
//     with the per-call limit kube's validator uses, so no rule is
//     compiled per request;
//   - Rules.Validate evaluates them as kube's schema/cel Validator does,
//     with kube's runtime cost budget per request, the old object on
//     update for transition rules (oldSelf, optionalOldSelf) and
//     ratcheting: an unchanged value is not judged again, as
//     kube-apiserver does since 1.33.
//
// The evaluation is specd's (evaluate.go), not kube's Validator, for one
// reason: speed. The Validator reads values through an adapter that
// rebuilds a node's children on every field access and cannot be given
// another; specd's adapter (cachedSchema) keeps them, which takes a
// 20-rule validation from about 140 to about 35 us. What the Validator
// says (errors, their order, paths, reasons and values, warnings, cost
// accounting) is restated, and TestSameAsKube* hold the two to the same
// answers over the corpus, every budget boundary and the corners.
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
