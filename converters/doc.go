// Package converters converts objects between the versions of a resource,
// hub and spoke through the storage version, working on the raw JSON with
// gjson and sjson: no object is decoded into a tree.
//
// Each non-storage version (a spoke) declares rules that map its fields to
// the storage version (the hub): rename, enum, toList/fromList, split/join,
// nest/flatten and constant, each with an exact inverse. A rule path may go
// into every element of a list ("spec.ports[*].name"): the rule then works
// on each element (elem.go). Compile checks a rule list against both
// schemas and reports every problem with its file and JSON pointer; NewSet
// compiles every resource of a registry into a Set, the Converter the
// engine uses; NewSetFrom compiles again only the groups a registry does
// not share with the previous one. A version without rules converts field for field, as None
// does.
//
// Conversion is lossless: what a version cannot hold (fields it lacks, list
// elements after the first, values a rule cannot map exactly) is kept in
// the specd.io/conversion-data annotation and restored when the object
// returns to a version that holds it; the annotation is removed when empty.
// What is kept of a list element names the element by its identity (its
// map-list keys, else its value), so that it follows the element when a
// client reorders the list (identity.go). Rules.RoundTrip checks this on
// one object. The rule format is documented in docs/conversion.md.
package converters
