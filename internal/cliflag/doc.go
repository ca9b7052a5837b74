// Package cliflag holds what specd's commands share beyond the standard
// library's flag package: a list flag, repeatable and comma-separated, as
// kube-apiserver's string slices are, and Parse, which answers -h on
// stdout and a bad flag in one line.
package cliflag
