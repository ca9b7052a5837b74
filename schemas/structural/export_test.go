package structural

// Test helpers for the external test package (corpus_test.go), which
// imports schemas/celrules, which imports this package.
var (
	Object       = object
	ErrorStrings = errorStrings
	JoinLines    = joinLines
	Itoa         = itoa
)
