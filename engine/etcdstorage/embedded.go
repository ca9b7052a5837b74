package etcdstorage

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// EmbeddedConfig configures an embedded etcd.
type EmbeddedConfig struct {
	// DataDir holds the member's data; it survives restarts.
	DataDir string
	// Logger receives etcd's warnings and errors; slog.Default when nil.
	Logger *slog.Logger
	// Fast trades durability for speed, for tests: short heartbeat and
	// election timeouts and no fsync.
	Fast bool
	// ReadyTimeout bounds the wait for the server to be ready; 30 s when 0.
	ReadyTimeout time.Duration
	// History is how long etcd keeps old revisions (for watches and list
	// snapshots) before compacting them; 1 h when 0, never when negative.
	History time.Duration
	// MaxValueBytes is the largest value one write must carry: etcd's
	// max request size is set to it plus RequestOverhead. etcd's default
	// (DefaultMaxRequestBytes) when 0.
	MaxValueBytes int64
}

// DefaultMaxRequestBytes is etcd's default --max-request-bytes (1.5 MiB).
const DefaultMaxRequestBytes = int64(embed.DefaultMaxRequestBytes)

// RequestOverhead is what one of specd's etcd writes carries beside the
// value: the key three times (compare, put, get), the transaction and its
// framing. A key is under 1 KiB (names are DNS labels and subdomains).
const RequestOverhead = 16 << 10

// MaxValueBytes is the largest value an etcd whose --max-request-bytes is
// maxRequestBytes takes in one of specd's writes.
func MaxValueBytes(maxRequestBytes int64) int64 { return maxRequestBytes - RequestOverhead }

// Embedded is a running single-member etcd on 127.0.0.1.
type Embedded struct {
	etcd      *embed.Etcd
	endpoints []string
	closeOnce sync.Once
}

// StartEmbedded starts an etcd server on free loopback ports and waits until
// it serves clients.
func StartEmbedded(ctx context.Context, c EmbeddedConfig) (*Embedded, error) {
	if c.DataDir == "" {
		return nil, fmt.Errorf("etcdstorage: embedded etcd needs a data directory")
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = 30 * time.Second
	}
	var lastErr error
	// Free ports are found by listening and closing; another process can
	// take one in between, so try a few times.
	for range 3 {
		e, err := startOnce(ctx, c)
		if err == nil {
			return e, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func startOnce(ctx context.Context, c EmbeddedConfig) (*Embedded, error) {
	clientURL, err := freeLoopbackURL()
	if err != nil {
		return nil, err
	}
	peerURL, err := freeLoopbackURL()
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Name = "specd"
	cfg.Dir = c.DataDir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(newSlogCore(c.Logger, zap.WarnLevel)))
	switch {
	case c.History == 0:
		cfg.AutoCompactionMode, cfg.AutoCompactionRetention = embed.CompactorModePeriodic, "1h"
	case c.History > 0:
		cfg.AutoCompactionMode, cfg.AutoCompactionRetention = embed.CompactorModePeriodic, c.History.String()
	}
	// etcd keeps every raft entry since its last snapshot in memory: by
	// default 10,000 writes, about as much again as the objects themselves.
	// A single member has no follower to catch up, so it snapshots more
	// often and keeps a short log (docs/performance.md: -18 MiB per 10,000
	// objects, no measurable cost).
	cfg.SnapshotCount, cfg.SnapshotCatchUpEntries = 2000, 1000
	if c.MaxValueBytes > 0 {
		cfg.MaxRequestBytes = uint(c.MaxValueBytes + RequestOverhead)
	}
	if c.Fast {
		cfg.TickMs = 10
		cfg.ElectionMs = 100
		cfg.UnsafeNoFsync = true
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdstorage: start embedded etcd: %w", err)
	}
	timer := time.NewTimer(c.ReadyTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcdstorage: embedded etcd: %w", err)
	case <-timer.C:
		e.Close()
		return nil, fmt.Errorf("etcdstorage: embedded etcd not ready after %s", c.ReadyTimeout)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("etcdstorage: start embedded etcd: %w", ctx.Err())
	}
	return &Embedded{etcd: e, endpoints: []string{clientURL.String()}}, nil
}

// Endpoints are the client URLs to give NewClient.
func (e *Embedded) Endpoints() []string { return e.endpoints }

// Err reports a fatal server error after start.
func (e *Embedded) Err() <-chan error { return e.etcd.Err() }

// Close stops the server. Close clients (and their watches) first: etcd
// waits several seconds for open watches before it stops. Close is safe to
// call more than once.
func (e *Embedded) Close() error {
	e.closeOnce.Do(e.etcd.Close)
	return nil
}

func freeLoopbackURL() (url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}, fmt.Errorf("etcdstorage: find a free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return url.URL{}, fmt.Errorf("etcdstorage: find a free port: %w", err)
	}
	return url.URL{Scheme: "http", Host: addr}, nil
}
