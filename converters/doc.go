// Package converters converts objects between the versions of a resource,
// hub and spoke through the storage version, working on the raw JSON.
//
// Today every version of a kind shares one schema shape, so a conversion
// rewrites apiVersion and nothing else (what a CustomResourceDefinition's
// "None" strategy does). Declarative rules come with multi-version support.
package converters
