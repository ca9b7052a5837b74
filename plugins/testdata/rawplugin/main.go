// Command rawplugin is a plugin written without go-plugin or plugins/sdk,
// as docs/plugins.md tells authors in other languages to: check the
// cookie, listen, serve gRPC with the health service, print the handshake
// line. It validates Widgets: spec.size must not be negative.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

type server struct {
	pluginv1.UnimplementedPluginServer
}

func (server) Describe(context.Context, *pluginv1.DescribeRequest) (*pluginv1.DescribeResponse, error) {
	return &pluginv1.DescribeResponse{Kinds: []*pluginv1.KindHooks{{Group: "test.specd.io", Kind: "Widget", Validate: true}}}, nil
}

func (server) Validate(_ context.Context, req *pluginv1.AdmissionRequest) (*pluginv1.ValidateResponse, error) {
	var w struct{ Spec struct{ Size int } }
	if err := json.Unmarshal(req.GetObject(), &w); err != nil {
		return nil, err
	}
	resp := &pluginv1.ValidateResponse{}
	if w.Spec.Size < 0 {
		resp.Errors = append(resp.Errors, &pluginv1.FieldError{
			Type: "FieldValueInvalid", Field: "spec.size", Message: "must be at least 0", Value: fmt.Appendf(nil, "%d", w.Spec.Size),
		})
	}
	return resp, nil
}

func main() {
	if os.Getenv("SPECD_PLUGIN_MAGIC_COOKIE") != "3f0c8e5b7d2a4e19b6c1d8f07a9e2b4c" {
		fmt.Fprintln(os.Stderr, "rawplugin is a specd plugin: put it in the --plugins directory")
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := grpc.NewServer()
	pluginv1.RegisterPluginServer(s, server{})
	h := health.NewServer()
	h.SetServingStatus("plugin", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, h)
	fmt.Printf("1|1|tcp|%s|grpc\n", ln.Addr())
	fmt.Fprintln(os.Stderr, "rawplugin serving")
	if err := s.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
