// Package clients pins the client generators that the acceptance tests
// (test/e2e/clients/clients_test.go) and docs/clients.md use: oapi-codegen as a
// Go tool of this module, its runtime (which the generated code imports)
// here, and openapi-typescript in ts/package.json. It is a module of its
// own so that none of them is a dependency of specd.
package clients

import _ "github.com/oapi-codegen/runtime" // imported by generated clients
