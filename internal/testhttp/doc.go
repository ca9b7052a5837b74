// Package testhttp sends the HTTP requests of specd's tests: the one
// place a test builds a request, sends it and reads the answer, whether
// it fails the test on no answer (Do) or runs in a goroutine of its own
// (Send). Only tests import it.
package testhttp
