// Command controller is what a user of specd writes with the Kubernetes
// client libraries at the versions pinned in this folder's go.mod
// (controller-runtime v0.25.2, the release that matches client-go v0.37),
// for the acceptance tests in test/e2e to run against a real specd. It is
// a module of its own so that none of it is a dependency of specd.
//
// It has two modes, each a plain use of its library with default client
// settings (typed clients send protobuf, as they do for every user):
//
//   - manager: a controller-runtime Manager with leader election on a
//     Lease, an event recorder, and a reconciler of unstructured objects
//     of one kind that writes their status and records an Event;
//   - elect: client-go's leaderelection package with a LeaseLock.
//
// Each logs, with log/slog's text handler on stderr, the lines the tests
// wait for: msg="became leader", msg=reconciled, msg="stopped leading".
package main
