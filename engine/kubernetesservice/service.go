package kubernetesservice

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// Name and Namespace of the Service, as kube-apiserver names it.
const (
	Name      = "kubernetes"
	Namespace = metav1.NamespaceDefault
)

// Store is what Ensure reads and writes with: the engine's surface.
type Store interface {
	engine.Reader
	engine.Writer
}

// Endpoint is where specd serves: the Service's cluster IP and port.
type Endpoint struct {
	IP     net.IP
	Port   int
	Secure bool // served over TLS: the port is named https
}

// EndpointOf is the Endpoint of a listener's address. An unspecified
// address (0.0.0.0, ::) is replaced by the host's address that kube
// advertises by default (utilnet.ResolveBindAddress), or by loopback on a
// host with no default route, where nothing else could reach specd.
func EndpointOf(addr net.Addr, secure bool) (Endpoint, error) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return Endpoint{}, fmt.Errorf("kubernetes service: the address %q: %w", addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return Endpoint{}, fmt.Errorf("kubernetes service: the port of %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return Endpoint{}, fmt.Errorf("kubernetes service: %q is not an IP address", host)
	}
	return Endpoint{IP: advertised(ip), Port: p, Secure: secure}, nil
}

// advertised is the address that stands for ip in the Service.
func advertised(ip net.IP) net.IP {
	if !ip.IsUnspecified() {
		return ip
	}
	if host, err := utilnet.ResolveBindAddress(ip); err == nil {
		return host
	}
	if ip.To4() != nil {
		return net.IPv4(127, 0, 0, 1)
	}
	return net.IPv6loopback
}

// Resource returns the storage version of the Service resource of reg;
// nil when reg does not serve it.
func Resource(reg *schemas.Registry) *schemas.ResourceVersion {
	return reg.ServedStorage("services")
}

// EnsureServing is Ensure for the replica that serves on addr, over TLS
// when secure; specd calls it before it serves (after the namespaces:
// the Service is in default).
func EnsureServing(ctx context.Context, store Store, reg *schemas.Registry, addr net.Addr, secure bool, log *slog.Logger) error {
	ep, err := EndpointOf(addr, secure)
	if err != nil {
		return err
	}
	return Ensure(ctx, store, reg, ep, log)
}

// ensureTimeout bounds Ensure: specd does not serve before it ends.
const ensureTimeout = 30 * time.Second

// Ensure creates the Service for ep, or replaces one that points
// elsewhere. It does nothing when reg serves no Services (--disable).
func Ensure(ctx context.Context, store Store, reg *schemas.Registry, ep Endpoint, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, ensureTimeout)
	defer cancel()
	rv := Resource(reg)
	if rv == nil {
		return nil
	}
	body, err := ep.body(rv)
	if err != nil {
		return err
	}
	ref := engine.Ref{Version: rv, Namespace: Namespace, Name: Name}
	old, err := store.Get(ctx, ref)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: Namespace}, Body: body, Options: engine.WriteOptions{FieldManager: fieldManager}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("kubernetes service: create: %w", err)
		}
		log.Info("service created", "service", Namespace+"/"+Name, "clusterIP", ep.IP.String(), "port", ep.Port)
		return nil
	case err != nil:
		return fmt.Errorf("kubernetes service: read: %w", err)
	case ep.matches(old):
		return nil
	}
	if _, err := store.Update(ctx, engine.WriteRequest{Ref: ref, Body: body, Options: engine.WriteOptions{FieldManager: fieldManager}}); err != nil {
		return fmt.Errorf("kubernetes service: update: %w", err)
	}
	log.Info("service updated", "service", Namespace+"/"+Name, "clusterIP", ep.IP.String(), "port", ep.Port)
	return nil
}

// fieldManager names specd in the Service's managed fields.
const fieldManager = "specd"

// matches reports whether the stored Service obj already points at ep.
func (ep Endpoint) matches(obj []byte) bool {
	got := gjson.GetManyBytes(obj, "spec.clusterIP", "spec.ports.#", "spec.ports.0.port", "spec.ports.0.name")
	return got[0].String() == ep.IP.String() && got[1].Int() == 1 && got[2].Int() == int64(ep.Port) && got[3].String() == ep.portName()
}

func (ep Endpoint) portName() string {
	if ep.Secure {
		return "https"
	}
	return "http"
}

// body is the Service as kube-apiserver writes it (labels, a single
// stack ClusterIP Service with one TCP port), at ep.
func (ep Endpoint) body(rv *schemas.ResourceVersion) ([]byte, error) {
	family := corev1.IPv4Protocol
	if ep.IP.To4() == nil {
		family = corev1.IPv6Protocol
	}
	ip := ep.IP.String()
	svc := map[string]any{
		"apiVersion": rv.APIVersion(),
		"kind":       rv.Resource.Kind,
		"metadata": map[string]any{
			"name": Name, "namespace": Namespace,
			"labels": map[string]string{"component": "apiserver", "provider": "kubernetes"},
		},
		"spec": map[string]any{
			"type":                  corev1.ServiceTypeClusterIP,
			"clusterIP":             ip,
			"clusterIPs":            []string{ip},
			"ipFamilies":            []corev1.IPFamily{family},
			"ipFamilyPolicy":        corev1.IPFamilyPolicySingleStack,
			"sessionAffinity":       corev1.ServiceAffinityNone,
			"internalTrafficPolicy": corev1.ServiceInternalTrafficPolicyCluster,
			"ports": []map[string]any{{
				"name": ep.portName(), "protocol": corev1.ProtocolTCP, "port": ep.Port, "targetPort": ep.Port,
			}},
		},
		"status": map[string]any{"loadBalancer": map[string]any{}},
	}
	b, err := json.Marshal(svc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes service: %w", err)
	}
	return b, nil
}
