package delegated

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Flags are the flags of aggregated serving: --aggregated, --kubeconfig,
// and the flags of k8s.io/apiserver's delegating options, under the names
// sample-apiserver and metrics-server give them (--authentication-kubeconfig,
// --requestheader-*, --authorization-always-allow-paths, the webhook cache
// TTLs, ...). The options define the flags; Register only hands them to
// specd's flag set.
type Flags struct {
	// Aggregated (--aggregated) turns delegation on.
	Aggregated bool
	// Kubeconfig (--kubeconfig) names the host cluster; empty: the
	// in-cluster configuration. It is also the authentication and
	// authorization kubeconfig unless those are given.
	Kubeconfig     string
	Authentication *options.DelegatingAuthenticationOptions
	Authorization  *options.DelegatingAuthorizationOptions
	// set names the delegating options' flags given on the command line.
	set map[string]bool
}

// ownFlags are the delegating options' flags that specd defines itself:
// --client-ca-file names the CAs of specd's own users (see the package
// documentation); the cluster's client CA is read from the host.
var ownFlags = []string{"client-ca-file"}

// Register adds the flags to fs, with the delegating options' defaults.
func (f *Flags) Register(fs *pflag.FlagSet) {
	f.Authentication = options.NewDelegatingAuthenticationOptions()
	f.Authorization = options.NewDelegatingAuthorizationOptions()
	f.set = map[string]bool{}
	fs.BoolVar(&f.Aggregated, "aggregated", false, "serve as an aggregated API server of the Kubernetes cluster --kubeconfig names: "+
		"authentication and authorization delegated to it (front-proxy headers, TokenReview, SubjectAccessReview), its namespaces, its events (docs/aggregation.md)")
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "with --aggregated: kubeconfig of the host cluster; without it, the in-cluster configuration "+
		"(the default of --authentication-kubeconfig and --authorization-kubeconfig too)")
	options := pflag.NewFlagSet("delegated", pflag.ContinueOnError)
	f.Authentication.AddFlags(options)
	f.Authorization.AddFlags(options)
	options.VisitAll(func(p *pflag.Flag) {
		if !slices.Contains(ownFlags, p.Name) {
			p.Value = tracked{Value: p.Value, name: p.Name, set: f.set}
			p.Usage = "with --aggregated: " + p.Usage
			fs.AddFlag(p)
		}
	})
}

// tracked notes that its flag was given.
type tracked struct {
	pflag.Value
	name string
	set  map[string]bool
}

func (t tracked) Set(v string) error {
	t.set[t.name] = true
	return t.Value.Set(v)
}

// Check reports delegating flags given without --aggregated, and what
// the delegating options refuse.
func (f *Flags) Check() error {
	if !f.Aggregated {
		var errs []error
		names := make([]string, 0, len(f.set))
		for name := range f.set {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			errs = append(errs, fmt.Errorf("--%s needs --aggregated", name))
		}
		if f.Kubeconfig != "" {
			errs = append(errs, errors.New("--kubeconfig needs --aggregated"))
		}
		return errors.Join(errs...)
	}
	errs := append(f.Authentication.Validate(), f.Authorization.Validate()...)
	return errors.Join(errs...)
}

// HostConfig is the client configuration of the host cluster:
// --kubeconfig, else the in-cluster configuration.
func (f *Flags) HostConfig() (*rest.Config, error) {
	if f.Kubeconfig == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("delegated: no --kubeconfig, and %w", err)
		}
		return cfg, nil
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: f.Kubeconfig}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("delegated: --kubeconfig %s: %w", f.Kubeconfig, err)
	}
	return cfg, nil
}
