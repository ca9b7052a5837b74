package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/namespace/host"
	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/serving"
	"github.com/specd-io/specd/server/apiservices"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/delegated"
)

// hostSyncTimeout bounds the first listing of the host's namespaces.
const hostSyncTimeout = 30 * time.Second

// apiServiceResync is how often the elected replica puts the
// APIServices back as the schemas say, besides after every reload.
const apiServiceResync = time.Minute

// aggregationFlags are the flags of serving as an aggregated API server
// of a host cluster (docs/aggregation.md).
type aggregationFlags struct {
	Delegated delegated.Flags
	// Register (--register-apiservices) keeps an APIService per served
	// group version in the host.
	Register bool
	// Service is --apiservice-service, NAMESPACE/NAME of the host Service
	// in front of specd, and Port --apiservice-port.
	Service string
	Port    int
	// CAFile (--apiservice-ca-file) is the caBundle; without it, the CA
	// specd generated into --data-dir.
	CAFile string
}

func (a *aggregationFlags) register(fs *flag.FlagSet) {
	a.Delegated.Register(fs)
	fs.BoolVar(&a.Register, "register-apiservices", false, "with --aggregated: create an APIService in the host for each served group version, and keep them in step with the schema directory")
	fs.StringVar(&a.Service, "apiservice-service", "", "NAMESPACE/NAME of the host Service in front of specd, which the APIServices point at (needed by --register-apiservices)")
	fs.IntVar(&a.Port, "apiservice-port", 443, "port of --apiservice-service; 0 for the port specd listens on (an ExternalName Service, or specd on the host network)")
	fs.StringVar(&a.CAFile, "apiservice-ca-file", "", "PEM file of the CA of the serving certificate, the APIServices' caBundle (default: the CA specd generates into --data-dir)")
}

// check says what is wrong with the flags, given the serving TLS.
func (a *aggregationFlags) check(tls servingTLS) error {
	if err := a.Delegated.Check(); err != nil {
		return err
	}
	var errs []error
	if !a.Delegated.Aggregated {
		if a.Register || a.Service != "" || a.CAFile != "" {
			errs = append(errs, errors.New("--register-apiservices, --apiservice-service and --apiservice-ca-file need --aggregated"))
		}
		return errors.Join(errs...)
	}
	if tls.Insecure {
		errs = append(errs, errors.New("--aggregated needs TLS: the host's front proxy authenticates with a client certificate; drop --insecure-serving"))
	}
	if a.Register {
		if _, err := a.config(nil); err != nil {
			errs = append(errs, err)
		}
		if tls.CertFile != "" && a.CAFile == "" {
			errs = append(errs, errors.New("--register-apiservices with --tls-cert-file needs --apiservice-ca-file, the CA of that certificate"))
		}
	}
	return errors.Join(errs...)
}

// config is the registrar's configuration, with caBundle.
func (a *aggregationFlags) config(caBundle []byte) (apiservices.Config, error) {
	ns, name, ok := strings.Cut(a.Service, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return apiservices.Config{}, fmt.Errorf("--apiservice-service %q: want NAMESPACE/NAME", a.Service)
	}
	if a.Port < 0 || a.Port > 65535 {
		return apiservices.Config{}, fmt.Errorf("--apiservice-port %d: must be 0 to 65535", a.Port)
	}
	return apiservices.Config{Namespace: ns, Service: name, Port: int32(a.Port), CABundle: caBundle, Skip: builtin.ReservedGroups()}, nil
}

// aggregation is what serving aggregated opens before specd serves: the
// delegation to the host, a client of it, and its namespaces. A nil
// *aggregation is standalone serving.
type aggregation struct {
	flags      aggregationFlags
	delegation *delegated.Delegation
	client     kubernetes.Interface
	registry   apiregistrationclient.ApiregistrationV1Interface
	namespaces *host.Namespaces
}

// openAggregation reads the host's authentication configuration and
// lists its namespaces; nil when specd serves standalone.
func openAggregation(ctx context.Context, flags aggregationFlags, log *slog.Logger) (*aggregation, error) {
	if !flags.Delegated.Aggregated {
		return nil, nil
	}
	restConfig, err := flags.Delegated.HostConfig()
	if err != nil {
		return nil, err
	}
	a := &aggregation{flags: flags}
	if a.client, err = kubernetes.NewForConfig(restConfig); err != nil {
		return nil, fmt.Errorf("host cluster: %w", err)
	}
	if a.registry, err = apiregistrationclient.NewForConfig(restConfig); err != nil {
		return nil, fmt.Errorf("host cluster: %w", err)
	}
	if a.delegation, err = delegated.New(&a.flags.Delegated); err != nil {
		return nil, err
	}
	a.namespaces = host.New(a.client)
	if err := a.namespaces.Start(ctx, hostSyncTimeout); err != nil {
		return nil, err
	}
	log.Info("serving aggregated", "host", restConfig.Host)
	return a, nil
}

// handshakeCAs are the host's client CAs, for the serving TLS.
func (a *aggregation) handshakeCAs() dynamiccertificates.CAContentProvider {
	if a == nil {
		return nil
	}
	return a.delegation.ClientCA()
}

// events is where plugins' Events go: the host's events API.
func (a *aggregation) events() events.Sink {
	if a == nil {
		return nil
	}
	return events.HostSink{Client: a.client.CoreV1()}
}

// namespaceCheck is the host's namespaces' check, else local.
func (a *aggregation) namespaceCheck(local engine.NamespaceCheck) engine.NamespaceCheck {
	if a == nil {
		return local
	}
	return a.namespaces
}

// foreignGroups are the groups whose objects are the host's: specd's
// collector leaves their owners to the host's.
func (a *aggregation) foreignGroups() []string {
	if a == nil {
		return nil
	}
	return builtin.ReservedGroups()
}

// localNamespaces is job, the controller of specd's own Namespaces, when
// standalone; aggregated, namespaces are the host's, whose namespace
// controller empties them through specd's API.
func (a *aggregation) localNamespaces(job background.Job) []background.Job {
	if a == nil {
		return []background.Job{job}
	}
	return nil
}

// registrar keeps the APIServices; nil without --register-apiservices.
// listen is the address specd listens on.
func (a *aggregation) registrar(dataDir string, listen net.Addr, log *slog.Logger) (*apiservices.Registrar, error) {
	if a == nil || !a.flags.Register {
		return nil, nil
	}
	caFile := a.flags.CAFile
	if caFile == "" {
		caFile = certs.FilesIn(dataDir).CACert
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("the APIServices' caBundle: %w", err)
	}
	cfg, err := a.flags.config(ca)
	if err != nil {
		return nil, err
	}
	if cfg.Port == 0 {
		cfg.Port = int32(listen.(*net.TCPAddr).Port)
	}
	return apiservices.NewRegistrar(a.registry.APIServices(), cfg, log.With("component", "apiservices")), nil
}

// followers are the reload followers of aggregation: the registrar.
func followers(r *apiservices.Registrar) []serving.Follower {
	if r == nil {
		return nil
	}
	return []serving.Follower{r}
}

// registrarJob puts the APIServices back every apiServiceResync, in the
// elected replica.
func registrarJob(r *apiservices.Registrar, registry func() *schemas.Registry) []background.Job {
	if r == nil {
		return nil
	}
	return []background.Job{background.JobFunc(func(ctx context.Context) { r.Run(ctx, registry, apiServiceResync) })}
}

// chainAuthenticator is local, or, aggregated, local's users (without
// anonymous) then the host's.
func (a *aggregation) chainAuthenticator(local authenticator.Request, anonymous bool) authenticator.Request {
	if a == nil {
		return local
	}
	return a.delegation.Authenticator(local, anonymous)
}
