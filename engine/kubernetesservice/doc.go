// Package kubernetesservice keeps the Service default/kubernetes, which
// kube-apiserver always serves and which clients read to learn where the
// API server is and which IP family the cluster uses (kube's e2e suite
// reads it before its first test). specd runs no service network, so
// the Service points at specd itself: its cluster IP is the address
// specd serves on, and its one port, named https (http without TLS), is
// the port specd listens on, which is also its target port.
//
// Ensure creates the Service, or replaces it when specd now serves on
// another address; every replica runs it before it serves, as each
// kube-apiserver reconciles the Service at start. The Service resource
// is read-only through the API, so this is its only writer.
package kubernetesservice
