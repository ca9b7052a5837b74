// Package golden reads and checks the golden files of specd's compiler
// tests. A golden file is a txtar archive (the format of
// golang.org/x/tools/txtar, written again here in a few lines rather than
// adding that module to go.mod): a free-text comment, then files, each
// introduced by a line "-- name --". A case keeps its input files and its
// expected output in one archive, as caddy's adapter tests do; a test
// renders its output from the inputs and compares it with the archive's
// expected file, or rewrites that file when run with -update, a flag this
// package defines for every test binary that imports it.
//
// Only tests import this package.
package golden
