// Package certs owns specd's TLS material: the CA, serving certificate and
// admin client certificate that `specd serve` generates into its data
// directory on first start and keeps afterwards (Ensure), the admin
// kubeconfig that points kubectl at them (WriteKubeconfig), and the
// server's *tls.Config whose serving certificate and client CAs follow
// their files on disk without a restart (NewServing).
//
// Reloading is k8s.io/apiserver's dynamiccertificates, the code
// kube-apiserver serves with, so a rotated certificate behaves as it does
// there: a new handshake sees the new files, open connections keep theirs.
// Client certificates are requested, never required, and not verified by
// the handshake: the x509 authenticator verifies them against
// Serving.ClientCA, so that a request with a bearer token and no
// certificate still reaches the authenticators.
package certs
