// Package fairness is API Priority and Fairness for specd: kube's own
// controller and filter (k8s.io/apiserver/pkg/util/flowcontrol,
// WithPriorityAndFairness) fed with kube-apiserver's built-in
// configuration, the mandatory and suggested FlowSchemas and
// PriorityLevelConfigurations, which do not change while specd runs.
//
// specd serves no flowcontrol.apiserver.k8s.io API, so the controller's
// informers read the configuration from a fixed, read-only source
// (source.go) instead of from storage. A request is classified as in
// kube-apiserver: system:masters is exempt, every other authenticated user
// falls in global-default, where each user is a flow of its own, so that
// one user's flood waits in its own queues while another user's requests
// go on.
package fairness
