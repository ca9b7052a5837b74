package kubernetesservice_test

import (
	"log/slog"
	"net"
	"testing"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/kubernetesservice"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newStore is a real Store on a new embedded etcd, serving the built-in
// groups.
func newStore(t *testing.T) (*engine.Store, *schemas.Registry) {
	t.Helper()
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	return engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet()}), reg
}

func TestEnsure(t *testing.T) {
	store, reg := newStore(t)
	rv := kubernetesservice.Resource(reg)
	ctx := t.Context()
	get := func() []byte {
		t.Helper()
		b, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "kubernetes"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ep := kubernetesservice.Endpoint{IP: net.ParseIP("127.0.0.1"), Port: 8443, Secure: true}
	if err := kubernetesservice.Ensure(ctx, store, reg, ep, quiet()); err != nil {
		t.Fatal(err)
	}
	first := get()
	want := map[string]string{
		"spec.type": "ClusterIP", "spec.clusterIP": "127.0.0.1", "spec.clusterIPs.0": "127.0.0.1", "spec.ipFamilies.0": "IPv4",
		"spec.ports.0.name": "https", "spec.ports.0.port": "8443", "spec.ports.0.targetPort": "8443", "spec.ports.0.protocol": "TCP",
		"metadata.labels.component": "apiserver", "metadata.labels.provider": "kubernetes",
	}
	for path, v := range want {
		if got := gjson.GetBytes(first, path).String(); got != v {
			t.Errorf("%s = %q, want %q", path, got, v)
		}
	}

	// Started again on the same address: nothing is written.
	if err := kubernetesservice.Ensure(ctx, store, reg, ep, quiet()); err != nil {
		t.Fatal(err)
	}
	if a, b := gjson.GetBytes(first, "metadata.resourceVersion").String(), gjson.GetBytes(get(), "metadata.resourceVersion").String(); a != b {
		t.Errorf("a second Ensure on the same address wrote the Service: resourceVersion %s -> %s", a, b)
	}

	// On another address, plain HTTP: the Service follows, same object.
	ep = kubernetesservice.Endpoint{IP: net.ParseIP("::1"), Port: 8080}
	if err := kubernetesservice.Ensure(ctx, store, reg, ep, quiet()); err != nil {
		t.Fatal(err)
	}
	moved := get()
	for path, v := range map[string]string{"spec.clusterIP": "::1", "spec.ipFamilies.0": "IPv6", "spec.ports.0.name": "http", "spec.ports.0.port": "8080",
		"metadata.uid": gjson.GetBytes(first, "metadata.uid").String()} {
		if got := gjson.GetBytes(moved, path).String(); got != v {
			t.Errorf("after a move, %s = %q, want %q", path, got, v)
		}
	}
}

func TestEnsureNotServed(t *testing.T) {
	store, reg := newStore(t)
	off, err := reg.Disable("api/v1/services")
	if err != nil {
		t.Fatal(err)
	}
	ep := kubernetesservice.Endpoint{IP: net.ParseIP("127.0.0.1"), Port: 8443}
	if err := kubernetesservice.Ensure(t.Context(), store, off, ep, quiet()); err != nil {
		t.Fatalf("Ensure without Services served: %v", err)
	}
	if _, err := store.Get(t.Context(), engine.Ref{Version: kubernetesservice.Resource(reg), Namespace: "default", Name: "kubernetes"}); !errors.IsNotFound(err) {
		t.Errorf("Ensure wrote a Service that is not served: get answered %v, want NotFound", err)
	}
}

func TestEndpointOf(t *testing.T) {
	tests := map[string]struct {
		addr   string
		secure bool
		want   string // IP and port; "" for any IP that is not unspecified
		port   int
	}{
		"loopback":    {addr: "127.0.0.1:6443", secure: true, want: "127.0.0.1", port: 6443},
		"ipv6":        {addr: "[::1]:8080", want: "::1", port: 8080},
		"unspecified": {addr: "0.0.0.0:443", port: 443},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			addr, err := net.ResolveTCPAddr("tcp", tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			ep, err := kubernetesservice.EndpointOf(addr, tc.secure)
			if err != nil {
				t.Fatal(err)
			}
			if ep.Port != tc.port || ep.Secure != tc.secure {
				t.Errorf("EndpointOf(%s) = %+v, want port %d secure %v", tc.addr, ep, tc.port, tc.secure)
			}
			if tc.want != "" && ep.IP.String() != tc.want || ep.IP.IsUnspecified() {
				t.Errorf("EndpointOf(%s) = IP %s, want %q (an address that is not unspecified)", tc.addr, ep.IP, tc.want)
			}
		})
	}
}
