package aggregated

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/namespace/host"
	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/server/apiservices"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/delegated"
)

// hostSyncTimeout bounds the first listing of the host's namespaces.
const hostSyncTimeout = 30 * time.Second

// Host is what serving aggregated opens before specd serves: the
// delegation to the host, a client of it, and its namespaces.
type Host struct {
	flags      Flags
	delegation *delegated.Delegation
	client     kubernetes.Interface
	registry   apiregistrationclient.ApiregistrationV1Interface
	namespaces *host.Namespaces
}

// Open reads the host's authentication configuration and lists its
// namespaces; nil when specd serves standalone.
func Open(ctx context.Context, flags Flags, log *slog.Logger) (*Host, error) {
	if !flags.Delegated.Aggregated {
		return nil, nil
	}
	restConfig, err := flags.Delegated.HostConfig()
	if err != nil {
		return nil, err
	}
	h := &Host{flags: flags}
	if h.client, err = kubernetes.NewForConfig(restConfig); err != nil {
		return nil, fmt.Errorf("host cluster: %w", err)
	}
	if h.registry, err = apiregistrationclient.NewForConfig(restConfig); err != nil {
		return nil, fmt.Errorf("host cluster: %w", err)
	}
	if h.delegation, err = delegated.New(&h.flags.Delegated); err != nil {
		return nil, err
	}
	h.namespaces = host.New(h.client)
	if err := h.namespaces.Start(ctx, hostSyncTimeout); err != nil {
		return nil, err
	}
	log.Info("serving aggregated", "host", restConfig.Host)
	return h, nil
}

// Delegation decides the host's users; nil standalone.
func (h *Host) Delegation() *delegated.Delegation {
	if h == nil {
		return nil
	}
	return h.delegation
}

// HandshakeCAs are the host's client CAs, for the serving TLS.
func (h *Host) HandshakeCAs() dynamiccertificates.CAContentProvider {
	if h == nil {
		return nil
	}
	return h.delegation.ClientCA()
}

// Events is where plugins' Events go: the host's events API.
func (h *Host) Events() events.Sink {
	if h == nil {
		return nil
	}
	return events.HostSink{Client: h.client.CoreV1()}
}

// NamespaceCheck is the host's namespaces' check, else local.
func (h *Host) NamespaceCheck(local engine.NamespaceCheck) engine.NamespaceCheck {
	if h == nil {
		return local
	}
	return h.namespaces
}

// ForeignGroups are the groups whose objects are the host's: specd's
// collector leaves their owners to the host's.
func (h *Host) ForeignGroups() []string {
	if h == nil {
		return nil
	}
	return builtin.HostGroups()
}

// LocalNamespaces is job, the controller of specd's own Namespaces, when
// standalone; aggregated, namespaces are the host's, whose namespace
// controller empties them through specd's API.
func (h *Host) LocalNamespaces(job background.Job) []background.Job {
	if h == nil {
		return []background.Job{job}
	}
	return nil
}

// Registrar keeps the APIServices; nil without --register-apiservices.
// listen is the address specd listens on.
func (h *Host) Registrar(dataDir string, listen net.Addr, log *slog.Logger) (*apiservices.Registrar, error) {
	if h == nil || !h.flags.RegisterAPIServices {
		return nil, nil
	}
	caFile := h.flags.CAFile
	if caFile == "" {
		caFile = certs.FilesIn(dataDir).CACert
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("the APIServices' caBundle: %w", err)
	}
	cfg, err := h.flags.Config(ca)
	if err != nil {
		return nil, err
	}
	if cfg.Port == 0 {
		cfg.Port = int32(listen.(*net.TCPAddr).Port)
	}
	return apiservices.NewRegistrar(h.registry.APIServices(), cfg, log.With("component", "apiservices")), nil
}
