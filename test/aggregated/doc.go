// Package aggregated runs specd as an aggregated API server of a real
// Kubernetes control plane on loopback: an etcd member (test/chaos's
// etcdmember), kube-apiserver with the aggregator, front-proxy
// certificates, a client CA and service-account keys, and
// kube-controller-manager with only its namespace, garbage-collector and
// service-account token controllers, all at the versions test/kube pins
// (`make kube`). No kubelet, no container, no download: an ExternalName
// Service named localhost routes the APIServices to specd, since kube
// refuses loopback addresses in Endpoints.
//
// specd's objects in the host (its ServiceAccount, host RBAC, and the
// ServiceMonitor with its scraper's credentials) are the Helm chart's
// (charts/specd) aggregated rendering, by the pinned Helm, as
// docs/aggregation.md tells users to apply them: the chart is what the
// tests prove. specd itself runs as a process, not as the chart's pod.
//
// The tests drive the host with kubectl and client-go as its users do,
// and specd with direct requests where the proof is about specd itself
// (a forged X-Remote-User, a decision by SubjectAccessReview).
package aggregated
