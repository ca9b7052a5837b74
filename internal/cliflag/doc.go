// Package cliflag holds the flag.Value types specd's commands share
// beyond the standard library's: a list flag, repeatable and
// comma-separated, as kube-apiserver's string slices are.
package cliflag
