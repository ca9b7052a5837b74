// Package clients holds the acceptance tests of the clients users bring:
// client-go, controller-runtime and client-go leader election (the test
// controller), Helm, and the Go and TypeScript clients and controller
// tests that docs/clients.md and docs/testing-controllers.md show.
package clients
