// Package testkube starts a real kube-apiserver for a test: the binary
// of test/kube (k8s.io/kubernetes at the version pinned there) on a
// loopback address, with an embedded etcd of its own (etcdtest), a CA,
// a serving certificate and a service account key made for the test, and
// an admin kubeconfig (system:masters). Tests that need Kubernetes' own
// API, which specd does not serve (Deployments, APIServices, the
// validation of any built-in kind), such as the server-side dry run of
// the Helm chart's manifests, use it.
//
// kube-apiserver refuses --secure-port=0, and no port may be picked by
// binding and closing it, so it binds a fixed port on an address of
// 127.0.0.0/8 chosen at random, and tries another address if that one is
// taken.
package testkube
