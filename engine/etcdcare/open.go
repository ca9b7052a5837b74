package etcdcare

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// OpenConfig says which etcd to open: the cluster of Servers, or the
// embedded one when there are none.
type OpenConfig struct {
	Servers []string
	// Client is how to reach Servers (TLS, logging).
	Client etcdstorage.ClientConfig
	// Embedded is the embedded etcd's configuration.
	Embedded etcdstorage.EmbeddedConfig
	Logger   *slog.Logger
}

// Opened is an open etcd: its storage and the client under it.
type Opened struct {
	Storage *etcdstorage.Storage
	Client  *clientv3.Client
	close   func()
	// embedded are the embedded etcd's endpoints; nil for a cluster.
	embedded []string
}

// Close closes the client, then the embedded etcd if there is one: an
// etcd that still has clients takes seconds to close.
func (o *Opened) Close() { o.close() }

// Open connects to the etcd cluster of cfg.Servers, or starts the
// embedded one, which specd reads and writes in-process and watches
// through its socket. Both go through the same client and storage, and
// their requests are timed (TimeRequests).
func Open(ctx context.Context, cfg OpenConfig) (*Opened, error) {
	o, err := open(ctx, cfg)
	if err == nil {
		o.logStarted(cfg)
	}
	return o, err
}

// logStarted says that the embedded etcd, if o is one, has started.
func (o *Opened) logStarted(cfg OpenConfig) {
	if o.embedded != nil {
		cfg.Logger.Info("embedded etcd started", "data-dir", cfg.Embedded.DataDir, "endpoints", o.embedded)
	}
}

// open is Open, silent.
func open(ctx context.Context, cfg OpenConfig) (*Opened, error) {
	if len(cfg.Servers) > 0 {
		client, err := etcdstorage.Connect(ctx, cfg.Client)
		if err != nil {
			return nil, fmt.Errorf("etcd %v: %w", cfg.Servers, err)
		}
		return opened(client, func() { closeClient(client, cfg.Logger) }, nil), nil
	}
	embedded, err := etcdstorage.StartEmbedded(ctx, cfg.Embedded)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	client, err := embedded.Client(ctx)
	if err != nil {
		_ = embedded.Close()
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	return opened(client, func() {
		closeClient(client, cfg.Logger)
		if err := embedded.Close(); err != nil {
			cfg.Logger.Warn("embedded etcd close", "err", err)
		}
	}, embedded.Endpoints()), nil
}

func opened(client *clientv3.Client, close func(), embedded []string) *Opened {
	TimeRequests(client)
	return &Opened{Storage: etcdstorage.New(client), Client: client, close: close, embedded: embedded}
}

func closeClient(client *clientv3.Client, log *slog.Logger) {
	if err := client.Close(); err != nil {
		log.Warn("etcd client close", "err", err)
	}
}

// healthTimeout bounds one health read; kube-apiserver gives its etcd
// check 2 s too.
const healthTimeout = 2 * time.Second

// Healthy is the readiness check of client's etcd that a load balancer
// relies on: a linearizable read, which only a cluster with a leader and
// a quorum answers. A replica that cannot reach such a cluster is taken
// out of rotation rather than answering errors.
func Healthy(client *clientv3.Client) func() error {
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
		defer cancel()
		if _, err := client.Get(ctx, "health", clientv3.WithKeysOnly(), clientv3.WithLimit(1)); err != nil {
			return fmt.Errorf("etcd does not answer: %w", err)
		}
		return nil
	}
}
