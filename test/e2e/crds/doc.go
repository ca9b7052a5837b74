// Package crds holds the acceptance tests of CustomResourceDefinitions:
// the CRD API as kubectl drives it, CRD files in the schema directory, a
// corpus of real projects' CRDs served as kube-apiserver serves them,
// and benchmarks of CRDs becoming Established.
package crds
