// Package controlplane holds the acceptance tests of what acts on
// objects beside the clients: the plugins (admission, reconcilers, their
// leader election and processes), the garbage collector, finalizers and
// cascading deletion, selectors, and the scale subresource.
package controlplane
