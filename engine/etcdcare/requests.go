package etcdcare

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"

	"github.com/specd-io/specd/internal/metrics"
)

// The request metrics are kube-apiserver's: etcd_request_duration_seconds
// with its buckets, and the counts beside it, by operation and type.
var (
	requestDuration = promauto.With(metrics.Registry).NewHistogramVec(prometheus.HistogramOpts{
		Name: "etcd_request_duration_seconds",
		Help: "Etcd request latency in seconds for each operation and object type (group/resource of the key).",
		Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
			4, 5, 6, 8, 10, 15, 20, 30, 45, 60},
	}, []string{"operation", "type"})
	requestsTotal = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "etcd_requests_total",
		Help: "Etcd requests for each operation and object type.",
	}, []string{"operation", "type"})
	requestErrors = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "etcd_request_errors_total",
		Help: "Etcd requests that failed, for each operation and object type.",
	}, []string{"operation", "type"})
)

// DialOptions are the gRPC options that time every unary request specd
// makes to etcd (watches are streams, and last as long as they are
// wanted). Give them to etcdstorage.ClientConfig.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(timeRequest)}
}

func timeRequest(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	start := time.Now()
	err := invoker(ctx, method, req, reply, cc, opts...)
	op, typ := describe(method, req)
	requestDuration.WithLabelValues(op, typ).Observe(time.Since(start).Seconds())
	requestsTotal.WithLabelValues(op, typ).Inc()
	if err != nil {
		requestErrors.WithLabelValues(op, typ).Inc()
	}
	return err
}

// describe names a request's operation (get, list, txn, put, delete, or
// the gRPC method in lower case) and the type of object its key holds.
func describe(method string, req any) (op, typ string) {
	switch r := req.(type) {
	case *pb.RangeRequest:
		if len(r.RangeEnd) == 0 {
			return "get", keyType(r.Key)
		}
		return "list", keyType(r.Key)
	case *pb.TxnRequest:
		return "txn", txnType(r)
	case *pb.PutRequest:
		return "put", keyType(r.Key)
	case *pb.DeleteRangeRequest:
		return "delete", keyType(r.Key)
	}
	return strings.ToLower(path.Base(method)), ""
}

// txnType is the type of the first key a transaction compares or touches.
func txnType(r *pb.TxnRequest) string {
	if len(r.Compare) > 0 {
		return keyType(r.Compare[0].Key)
	}
	for _, op := range r.Success {
		switch o := op.Request.(type) {
		case *pb.RequestOp_RequestRange:
			return keyType(o.RequestRange.Key)
		case *pb.RequestOp_RequestPut:
			return keyType(o.RequestPut.Key)
		case *pb.RequestOp_RequestDeleteRange:
			return keyType(o.RequestDeleteRange.Key)
		}
	}
	return ""
}

// keyType is the group and resource of an object key
// (/specd/<group>/<plural>/...: "apps/deployments"), or the first segment
// of any other key ("specd-leader"), so that the label takes as many
// values as there are resources.
func keyType(key []byte) string {
	parts := strings.SplitN(strings.TrimPrefix(string(key), "/"), "/", 4)
	if len(parts) < 4 {
		return parts[0]
	}
	return parts[1] + "/" + parts[2]
}
