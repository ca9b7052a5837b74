// Package testschemas holds the schema files that specd's tests use again
// and again: Gadget (gadgets.example.com, a resource whose file the tests
// change: versions, x-specd-resource, spec properties), Hammer
// (tools.example.com, a stable resource) and Thing (things.example.com,
// an alpha resource), Gizmo (two versions with a conversion rule, for the
// storage version tests), and objects of them. The files are embedded
// from files/; Gadgets renders the Gadget file with the parts a test
// changes.
//
// Only tests import this package.
package testschemas
