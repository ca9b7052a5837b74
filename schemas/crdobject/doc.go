// Package crdobject turns an apiextensions.k8s.io/v1
// CustomResourceDefinition object, as the CRD API stores it, into the
// schema documents it declares (schemas.Declared, one per version, in
// specd's format), so that a CRD written through the API enters the
// registry through the same parser, compiler and checks as a schema file.
// Problems in those documents are mapped back to the CRD's own fields
// (FieldPath) for the API's 422 answers.
//
// The annotation AllowBreakingAnnotation ("specd.io/allow-breaking":
// "true") on a CRD is its x-specd.allowBreaking: the compatibility gate
// lets a breaking change of it through.
package crdobject
