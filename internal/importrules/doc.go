// Package importrules holds no code: its tests check the direction of
// imports between specd's packages, floor by floor from the top: cmd; the
// tests and the load tool; server; engine (whose root imports none of
// its subsystems, and etcdstorage only the storage contract); serving;
// check; converters; the plugins (plugins/sdk only the protocol);
// schemas; internal. Leaves (the storage contract, the plugin hook types,
// the metrics registry) import nothing of the module; nothing imports cmd.
//
// The rules are a table in importrules_test.go; each names the packages
// it covers and the module packages they may not (or may only) import.
// TestImportRules runs go list over the whole module and names the rule,
// the package and the import for every import that breaks one;
// TestEveryPackageHasARule requires every package to be under a rule of
// its floor; TestCheck breaks each rule once, with a made-up import, to
// show that it catches it. Only the imports of non-test files are
// checked.
package importrules
