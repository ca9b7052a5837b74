// Package chain opens specd's request chain from its flags and wraps the
// API's handler in it: the authenticators (some of which fetch in the
// background), the audit log, priority and fairness or the in-flight
// limits, and, when specd serves aggregated, the host cluster's
// delegation (package delegated), which authenticates and decides the
// host's users. The filters themselves, in kube's order, are package
// filters'.
package chain
