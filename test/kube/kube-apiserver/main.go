// Command kube-apiserver is kube's kube-apiserver (k8s.io/kubernetes
// cmd/kube-apiserver/app, at the version test/kube pins) with one
// difference for tests on a shared machine: --secure-port=0 serves on a
// port of 127.0.0.1 that the kernel picks, passed to kube's options as an
// open listener (SecureServing.Listener, as kube's own test server does),
// and prints "serving on https://127.0.0.1:PORT" on standard output
// before anything else. kube's flag refuses 0, and picking a port by
// binding and closing it races with every other test.
package main

import (
	"fmt"
	"net"
	"os"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kube-apiserver:", err)
		os.Exit(1)
	}
}

// run is what kube's NewAPIServerCommand runs, with the listener set
// between parsing the flags and completing the options.
func run(args []string) error {
	s := options.NewServerRunOptions()
	ctx := genericapiserver.SetupSignalContext()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	named := s.Flags()
	globalflag.AddGlobalFlags(named.FlagSet("global"), "kube-apiserver", logs.SkipLoggingConfigurationFlags())
	for _, f := range named.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	gate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(s.Logs, gate); err != nil {
		return err
	}
	// --secure-port=0: the listener made here stays open and is handed to
	// the server (SecureServing.Listener), so no other process can take
	// the port between its pick and its use.
	if s.SecureServing.BindPort == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.SecureServing.Listener, s.SecureServing.BindPort = ln, ln.Addr().(*net.TCPAddr).Port
		fmt.Printf("serving on https://%s\n", ln.Addr())
	}
	completed, err := s.Complete(ctx)
	if err != nil {
		return err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return utilerrors.NewAggregate(errs)
	}
	return app.Run(ctx, completed)
}
