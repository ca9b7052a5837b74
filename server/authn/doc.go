// Package authn owns how specd learns who sent a request: it turns the
// authentication flags into a k8s.io/apiserver authenticator.Request built
// from the same authenticators kube-apiserver runs — x509 client
// certificates, a static token file, OIDC id tokens and, when asked for,
// anonymous — tried in kube's order, so a kubeconfig that works against
// kube-apiserver works against specd and names the same user.
//
// It decides identity only. Answering 401, impersonation and what a user
// may do belong to the request chain and the authorizer.
package authn
