package aggregated

import (
	"errors"
	"fmt"
	"strings"

	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/server/apiservices"
	"github.com/specd-io/specd/server/delegated"
	"github.com/spf13/pflag"
)

// Flags are the flags of serving as an aggregated API server of a host
// cluster.
type Flags struct {
	Delegated delegated.Flags
	// RegisterAPIServices (--register-apiservices) keeps an APIService per served
	// group version in the host.
	RegisterAPIServices bool
	// Service is --apiservice-service, NAMESPACE/NAME of the host Service
	// in front of specd, and Port --apiservice-port.
	Service string
	Port    int
	// CAFile (--apiservice-ca-file) is the caBundle; without it, the CA
	// specd generated into --data-dir.
	CAFile string
}

// Register defines the flags on fs.
func (a *Flags) Register(fs *pflag.FlagSet) {
	a.Delegated.Register(fs)
	fs.BoolVar(&a.RegisterAPIServices, "register-apiservices", false, "with --aggregated: create an APIService in the host for each served group version, and keep them in step with the schema directory")
	fs.StringVar(&a.Service, "apiservice-service", "", "NAMESPACE/NAME of the host Service in front of specd, which the APIServices point at (needed by --register-apiservices)")
	fs.IntVar(&a.Port, "apiservice-port", 443, "port of --apiservice-service; 0 for the port specd listens on (an ExternalName Service, or specd on the host network)")
	fs.StringVar(&a.CAFile, "apiservice-ca-file", "", "PEM file of the CA of the serving certificate, the APIServices' caBundle (default: the CA specd generates into --data-dir)")
}

// Check says what is wrong with the flags, given the serving TLS:
// insecure (--insecure-serving) and the serving certificate's file.
func (a *Flags) Check(insecure bool, certFile string) error {
	if err := a.Delegated.Check(); err != nil {
		return err
	}
	var errs []error
	if !a.Delegated.Aggregated {
		if a.RegisterAPIServices || a.Service != "" || a.CAFile != "" {
			errs = append(errs, errors.New("--register-apiservices, --apiservice-service and --apiservice-ca-file need --aggregated"))
		}
		return errors.Join(errs...)
	}
	if insecure {
		errs = append(errs, errors.New("--aggregated needs TLS: the host's front proxy authenticates with a client certificate; drop --insecure-serving"))
	}
	if a.RegisterAPIServices {
		if _, err := a.Config(nil); err != nil {
			errs = append(errs, err)
		}
		if certFile != "" && a.CAFile == "" {
			errs = append(errs, errors.New("--register-apiservices with --tls-cert-file needs --apiservice-ca-file, the CA of that certificate"))
		}
	}
	return errors.Join(errs...)
}

// Config is the registrar's configuration, with caBundle.
func (a *Flags) Config(caBundle []byte) (apiservices.Config, error) {
	ns, name, ok := strings.Cut(a.Service, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return apiservices.Config{}, fmt.Errorf("--apiservice-service %q: want NAMESPACE/NAME", a.Service)
	}
	if a.Port < 0 || a.Port > 65535 {
		return apiservices.Config{}, fmt.Errorf("--apiservice-port %d: must be 0 to 65535", a.Port)
	}
	return apiservices.Config{Namespace: ns, Service: name, Port: int32(a.Port), CABundle: caBundle, Skip: builtin.HostGroups()}, nil
}
