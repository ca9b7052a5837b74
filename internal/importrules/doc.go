// Package importrules holds no code: its test checks the import direction
// that DESIGN.md sets for specd's packages (cmd -> server -> engine ->
// {schemas, converters, plugins}; converters -> schemas at most;
// plugins/sdk imports only the protocol; nothing imports cmd; leaf
// packages import nothing of the module).
//
// The rules are a table in importrules_test.go; each names the packages
// it covers and the module packages they may not (or may only) import.
// The test runs go list over the whole module and names the rule, the
// package and the import for every import that breaks one. Only the
// imports of non-test files are checked.
package importrules
