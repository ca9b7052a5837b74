package etcdstorage

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// healthTimeout bounds the first read NewClient makes.
const healthTimeout = 10 * time.Second

// NewClient connects to an etcd cluster (embedded or external) and checks
// that it answers before returning.
func NewClient(ctx context.Context, endpoints []string) (*clientv3.Client, error) {
	return NewClientWithLogger(ctx, endpoints, slog.Default())
}

// NewClientWithLogger is NewClient with the logger that receives the
// client's warnings.
func NewClientWithLogger(ctx context.Context, endpoints []string, log *slog.Logger) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("etcdstorage: no etcd endpoints")
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          10 * time.Second,
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
		Logger:               zap.New(newSlogCore(log, zap.WarnLevel)),
		Context:              context.WithoutCancel(ctx),
		MaxCallRecvMsgSize:   256 << 20,
		// specd bounds the objects it writes itself (engine
		// Options.MaxObjectBytes), so etcd's --max-request-bytes, not the
		// client's 2 MiB default, is the limit that speaks.
		MaxCallSendMsgSize: 256 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("etcdstorage: connect to %v: %w", endpoints, err)
	}
	// Answering a read proves the endpoints serve a cluster with a leader.
	checkCtx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if _, err := cli.Get(checkCtx, "health-check", clientv3.WithKeysOnly(), clientv3.WithLimit(1)); err != nil {
		cli.Close()
		return nil, fmt.Errorf("etcdstorage: etcd at %v does not answer: %w", endpoints, err)
	}
	return cli, nil
}
