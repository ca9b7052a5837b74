package etcdstorage

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// healthTimeout bounds the first read NewClient makes.
const healthTimeout = 10 * time.Second

// ClientConfig says how to reach an etcd cluster.
type ClientConfig struct {
	// Endpoints are the client URLs: http(s)://host:port or unix://path.
	Endpoints []string
	// CAFile, CertFile and KeyFile are PEM files, as kube-apiserver's
	// --etcd-cafile, --etcd-certfile and --etcd-keyfile: the CAs that sign
	// etcd's serving certificate (the system's when empty), and the client
	// certificate and key specd presents (given together, or not at all).
	// Any of them makes every endpoint https.
	CAFile, CertFile, KeyFile string
	// Logger receives the client's warnings; slog.Default when nil.
	Logger *slog.Logger
}

// NewClient connects to an etcd cluster (embedded or external) and checks
// that it answers before returning.
func NewClient(ctx context.Context, endpoints []string) (*clientv3.Client, error) {
	return Connect(ctx, ClientConfig{Endpoints: endpoints})
}

// NewClientWithLogger is NewClient with the logger that receives the
// client's warnings.
func NewClientWithLogger(ctx context.Context, endpoints []string, log *slog.Logger) (*clientv3.Client, error) {
	return Connect(ctx, ClientConfig{Endpoints: endpoints, Logger: log})
}

// Connect connects to the etcd cluster c names and checks that it answers
// before returning.
func Connect(ctx context.Context, c ClientConfig) (*clientv3.Client, error) {
	if len(c.Endpoints) == 0 {
		return nil, fmt.Errorf("etcdstorage: no etcd endpoints")
	}
	cfg, err := c.Config(ctx)
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdstorage: connect to %v: %w", c.Endpoints, err)
	}
	// Answering a read proves the endpoints serve a cluster with a leader.
	checkCtx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if _, err := cli.Get(checkCtx, "health-check", clientv3.WithKeysOnly(), clientv3.WithLimit(1)); err != nil {
		cli.Close()
		return nil, fmt.Errorf("etcdstorage: etcd at %v does not answer: %w", c.Endpoints, err)
	}
	return cli, nil
}

// Config is the etcd client configuration c describes; ctx bounds the
// client's life.
func (c ClientConfig) Config(ctx context.Context) (clientv3.Config, error) {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	tlsConfig, err := c.tlsConfig()
	if err != nil {
		return clientv3.Config{}, err
	}
	return clientv3.Config{
		Endpoints:            c.Endpoints,
		TLS:                  tlsConfig,
		DialTimeout:          10 * time.Second,
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
		Logger:               zap.New(newSlogCore(c.Logger, zap.WarnLevel)),
		Context:              context.WithoutCancel(ctx),
		MaxCallRecvMsgSize:   256 << 20,
		// specd bounds the objects it writes itself (engine
		// Options.MaxObjectBytes), so etcd's --max-request-bytes, not the
		// client's 2 MiB default, is the limit that speaks.
		MaxCallSendMsgSize: 256 << 20,
	}, nil
}

// tlsConfig is the client's TLS configuration: nil without any file.
func (c ClientConfig) tlsConfig() (*tls.Config, error) {
	if c.CAFile == "" && c.CertFile == "" && c.KeyFile == "" {
		return nil, nil
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return nil, fmt.Errorf("etcdstorage: a client certificate needs both its certificate and its key file")
	}
	// The client sends plain text to an http:// endpoint even with a TLS
	// configuration: refuse rather than drop the certificates silently.
	for _, ep := range c.Endpoints {
		if !strings.HasPrefix(ep, "https://") {
			return nil, fmt.Errorf("etcdstorage: etcd endpoint %q: TLS files are given, so the endpoint must be https://", ep)
		}
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("etcdstorage: etcd CA: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("etcdstorage: etcd CA %s: no PEM certificate in it", c.CAFile)
		}
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("etcdstorage: etcd client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
