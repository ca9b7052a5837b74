package etcdcare

import (
	"context"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	clientv3 "go.etcd.io/etcd/client/v3"

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

// TimeRequests makes client time every key-value request it makes (gets,
// lists, transactions, puts, deletes, compactions) in the request
// metrics. It works on the KV of the client, not on its transport, so
// that the in-process client of the embedded etcd is timed as a remote
// one is. Watches are streams, and last as long as they are wanted.
func TimeRequests(client *clientv3.Client) {
	client.KV = timedKV{client.KV}
}

func observe(op string, key []byte, start time.Time, err error) {
	typ := keyType(key)
	requestDuration.WithLabelValues(op, typ).Observe(time.Since(start).Seconds())
	requestsTotal.WithLabelValues(op, typ).Inc()
	if err != nil {
		requestErrors.WithLabelValues(op, typ).Inc()
	}
}

// timedKV times the requests of the KV it wraps.
type timedKV struct{ clientv3.KV }

func (k timedKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	start := time.Now()
	resp, err := k.KV.Get(ctx, key, opts...)
	observe(getOrList(clientv3.OpGet(key, opts...)), []byte(key), start, err)
	return resp, err
}

func (k timedKV) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	start := time.Now()
	resp, err := k.KV.Put(ctx, key, val, opts...)
	observe("put", []byte(key), start, err)
	return resp, err
}

func (k timedKV) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	start := time.Now()
	resp, err := k.KV.Delete(ctx, key, opts...)
	observe("delete", []byte(key), start, err)
	return resp, err
}

func (k timedKV) Compact(ctx context.Context, rev int64, opts ...clientv3.CompactOption) (*clientv3.CompactResponse, error) {
	start := time.Now()
	resp, err := k.KV.Compact(ctx, rev, opts...)
	observe("compact", nil, start, err)
	return resp, err
}

func (k timedKV) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	start := time.Now()
	resp, err := k.KV.Do(ctx, op)
	observe(opName(op), op.KeyBytes(), start, err)
	return resp, err
}

func (k timedKV) Txn(ctx context.Context) clientv3.Txn {
	return &timedTxn{Txn: k.KV.Txn(ctx)}
}

// timedTxn times its Commit, under the type of the first key it compares
// or, with no comparison, of the first it reads or writes.
type timedTxn struct {
	clientv3.Txn
	key []byte
}

func (t *timedTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	if t.key == nil && len(cs) > 0 {
		t.key = cs[0].KeyBytes()
	}
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *timedTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	if t.key == nil && len(ops) > 0 {
		t.key = ops[0].KeyBytes()
	}
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *timedTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *timedTxn) Commit() (*clientv3.TxnResponse, error) {
	start := time.Now()
	resp, err := t.Txn.Commit()
	observe("txn", t.key, start, err)
	return resp, err
}

// getOrList names a read of one key "get", of a range "list".
func getOrList(op clientv3.Op) string {
	if len(op.RangeBytes()) > 0 {
		return "list"
	}
	return "get"
}

func opName(op clientv3.Op) string {
	switch {
	case op.IsGet():
		return getOrList(op)
	case op.IsPut():
		return "put"
	case op.IsDelete():
		return "delete"
	default:
		return "txn"
	}
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
