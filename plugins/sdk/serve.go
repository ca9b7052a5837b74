package sdk

import (
	"context"
	"fmt"
	"os"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// DefaultFunc sets defaults on req.Object in place. An error fails the
// request by the binding's failure policy; it is not a validation error.
type DefaultFunc func(ctx context.Context, req *AdmissionRequest) error

// ValidateFunc returns the field errors of req.Object; none allows it. An
// error means the plugin could not decide, and the binding's failure policy
// applies.
type ValidateFunc func(ctx context.Context, req *AdmissionRequest) (FieldErrors, error)

// ReconcileFunc moves the world toward req.Object's spec. An error makes
// specd retry the object with backoff.
type ReconcileFunc func(ctx context.Context, req *ReconcileRequest) (Result, error)

// Handler is one function registered for one group and kind; build it with
// Defaulter, Validator or Reconciler.
type Handler struct {
	group, kind string
	defaulter   DefaultFunc
	validator   ValidateFunc
	reconciler  ReconcileFunc
	finalizer   string
}

// Defaulter registers fn to default objects of group and kind.
func Defaulter(group, kind string, fn DefaultFunc) Handler {
	return Handler{group: group, kind: kind, defaulter: fn}
}

// Validator registers fn to validate objects of group and kind.
func Validator(group, kind string, fn ValidateFunc) Handler {
	return Handler{group: group, kind: kind, validator: fn}
}

// Reconciler registers fn to reconcile objects of group and kind.
func Reconciler(group, kind string, fn ReconcileFunc) Handler {
	return Handler{group: group, kind: kind, reconciler: fn}
}

// WithFinalizer asks specd to keep the finalizer name on every object of the
// reconciler's kind: deleting such an object then only sets its
// deletionTimestamp, and the reconciler is called until it returns
// Result{FinalizerDone: true}.
func (h Handler) WithFinalizer(name string) Handler {
	h.finalizer = name
	return h
}

// Serve serves the handlers to specd and returns only when specd stops the
// plugin. Run by hand, the program says it is a plugin and exits 1; given
// handlers that conflict (two defaulters for one kind, ...), it says so and
// exits 1.
func Serve(handlers ...Handler) {
	srv, err := newServer(handlers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "specd plugin:", err)
		os.Exit(1)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: pluginv1.Handshake,
		Plugins:         plugin.PluginSet{pluginv1.PluginName: &grpcPlugin{srv: srv}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, pluginv1.ServerOptions()...)...)
		},
	})
}

// grpcPlugin is the plugin side of go-plugin's plugin: it registers the
// Plugin service and gives it the broker for calls back to specd.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

func (p *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	p.srv.broker = broker
	pluginv1.RegisterPluginServer(s, p.srv)
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("specd plugin: the sdk serves plugins, it does not call them")
}
