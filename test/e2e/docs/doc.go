// Package docs runs the documentation: every example of docs/*.md and
// README.md (TestDocs, whose format docs_parse_test.go reads), the
// README's quick start and index of pages, and the example objects.
package docs
