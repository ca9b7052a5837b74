// Package schemagen writes schema directories of many made-up resources,
// for the benchmarks and tests that measure specd with thousands of
// types (docs/performance.md, "Many types").
package schemagen
