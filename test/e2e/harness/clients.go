package harness

import (
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// RestConfig is a client-go configuration for s: plain HTTP with no
// credentials, or the admin kubeconfig's when s is Secure.
func RestConfig(s *Specd) *rest.Config {
	cfg := rest.CopyConfig(s.Rest)
	cfg.Timeout, cfg.QPS, cfg.Burst = 20*time.Second, 1000, 1000
	return cfg
}

// DynamicClient is a dynamic client of s.
func DynamicClient(t testing.TB, s *Specd) *dynamic.DynamicClient {
	t.Helper()
	return DynamicClientFor(t, RestConfig(s))
}

// DynamicClientFor is a dynamic client of cfg.
func DynamicClientFor(t testing.TB, cfg *rest.Config) *dynamic.DynamicClient {
	t.Helper()
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
