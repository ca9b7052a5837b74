// Package testkube starts a real kube-apiserver for a test: the binary
// of test/kube (k8s.io/kubernetes at the version pinned there) on a
// loopback address, with an embedded etcd of its own (etcdtest), a CA,
// a serving certificate and a service account key made for the test, and
// an admin kubeconfig (system:masters). Tests that need Kubernetes' own
// API, which specd does not serve (Deployments, APIServices, the
// validation of any built-in kind), such as the server-side dry run of
// the Helm chart's manifests, use it.
//
// It runs test/kube's kube-apiserver command (make kube-apiserver), which
// takes --secure-port=0: it serves on a port of 127.0.0.1 the kernel
// picks and prints which, since kube's own flag refuses 0 and no port may
// be picked by binding and closing it.
package testkube
