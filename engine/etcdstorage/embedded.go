package etcdstorage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"go.uber.org/zap"
)

// EmbeddedConfig configures an embedded etcd.
type EmbeddedConfig struct {
	// DataDir holds the member's data; it survives restarts.
	DataDir string
	// Logger receives etcd's warnings and errors; slog.Default when nil.
	Logger *slog.Logger
	// Fast trades durability and idle CPU for speed, for tests: shorter
	// raft ticks still, and no fsync.
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
	// QuotaBackendBytes is etcd's --quota-backend-bytes: past it etcd
	// raises its NOSPACE alarm and refuses writes. etcd's default (2 GiB)
	// when 0.
	QuotaBackendBytes int64
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

// Embedded is a running single-member etcd that listens on a unix socket
// in its data directory and on nothing else.
type Embedded struct {
	etcd      *embed.Etcd
	lock      *fileutil.LockedFile
	endpoints []string
	closeOnce sync.Once
}

// SocketName is the file, in the data directory, of the embedded etcd's
// client socket.
const SocketName = "etcd.sock"

// ErrInUse is StartEmbedded's error when another process runs an
// embedded etcd on the same data directory.
var ErrInUse = errors.New("data directory in use")

// lockName is the file, in the data directory, that an embedded etcd
// holds locked while it runs. etcd would unlink the socket of one already
// running there before waiting forever for its database.
const lockName = "specd.lock"

// maxSocketPath is the longest path a unix socket can have on Linux
// (sun_path is 108 bytes, NUL included).
const maxSocketPath = 107

// StartEmbedded starts an etcd server and waits until it serves clients.
// It listens on no TCP port: its clients reach it through the socket
// SocketName in the data directory, which is made 0700 (an existing one
// that has content and that other users can enter is refused) and the
// socket made 0600, so
// only the user specd runs as can talk to it. A single member has no peer
// to talk to, so it has no peer listener.
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
	dir, err := privateDir(c.DataDir)
	if err != nil {
		return nil, err
	}
	socket := filepath.Join(dir, SocketName)
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("etcdstorage: the embedded etcd's socket %s is longer than the %d bytes a unix socket path may have: use a shorter --data-dir", socket, maxSocketPath)
	}
	lock, err := fileutil.TryLockFile(filepath.Join(dir, lockName), os.O_WRONLY|os.O_CREATE, 0o600)
	if errors.Is(err, fileutil.ErrLocked) {
		return nil, fmt.Errorf("etcdstorage: data directory %s is in use by another embedded etcd (%s is locked): %w", dir, lockName, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("etcdstorage: data directory: %w", err)
	}
	clientURL := url.URL{Scheme: "unix", Path: socket}
	e, err := startEtcd(ctx, c, dir, clientURL)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &Embedded{etcd: e, lock: lock, endpoints: []string{clientURL.String()}}, nil
}

// startEtcd starts etcd in dir, serving clients at clientURL, and waits
// until it is ready.
func startEtcd(ctx context.Context, c EmbeddedConfig, dir string, clientURL url.URL) (*embed.Etcd, error) {
	socket := clientURL.Path
	e, err := embed.StartEtcd(embedConfig(c, dir, clientURL))
	if err != nil {
		return nil, fmt.Errorf("etcdstorage: start embedded etcd: %w", err)
	}
	// etcd made the socket with the process's umask; the directory already
	// keeps other users out, and this keeps them out of the socket too.
	if err := os.Chmod(socket, 0o600); err != nil {
		e.Close()
		return nil, fmt.Errorf("etcdstorage: embedded etcd socket: %w", err)
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
	return e, nil
}

// embedConfig is the configuration of a single member in dir, serving
// clients at clientURL only.
func embedConfig(c EmbeddedConfig, dir string, clientURL url.URL) *embed.Config {
	peerURL := PeerURL(dir)
	cfg := embed.NewConfig()
	cfg.Name = MemberName
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = nil
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.InitialClusterToken = ClusterToken
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
	cfg.QuotaBackendBytes = c.QuotaBackendBytes
	if c.MaxValueBytes > 0 {
		cfg.MaxRequestBytes = uint(c.MaxValueBytes + RequestOverhead)
	}
	// A single member has no peer to wait for or to lose: its election
	// timeout only delays its start. With etcd's defaults (a 100 ms tick,
	// a 1 s election) a start took 0.52 s, with these 0.18 s; each tick
	// costs a little CPU when idle, so not shorter (docs/performance.md).
	// The election is the shortest etcd allows for the tick (five): when a
	// new member's first campaign comes before it has applied its own
	// membership, which a busy machine makes likely, raft waits a whole
	// randomized election timeout before the next (docs/performance.md).
	cfg.TickMs, cfg.ElectionMs = 25, 125
	if c.Fast {
		cfg.TickMs, cfg.ElectionMs = 10, 100
		cfg.UnsafeNoFsync = true
	}
	return cfg
}

// MemberName is the embedded etcd's member name.
const MemberName = "specd"

// ClusterToken is the embedded etcd's initial cluster token (etcd's
// default).
const ClusterToken = "etcd-cluster"

// PeerURL is the peer URL of the embedded etcd whose data directory is
// the absolute path dir. etcd names a member by its peer URLs; this one
// is never listened on or dialled: a single member sends raft messages
// to no one. A snapshot restored for the embedded etcd names the same.
func PeerURL(dir string) url.URL {
	return url.URL{Scheme: "unix", Path: filepath.Join(dir, "peer.sock.unused")}
}

// SocketEndpoint is the client URL of the embedded etcd whose data
// directory is dataDir: the unix socket specd's tools beside it use.
func SocketEndpoint(dataDir string) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("etcdstorage: data directory %s: %w", dataDir, err)
	}
	return (&url.URL{Scheme: "unix", Path: filepath.Join(abs, SocketName)}).String(), nil
}

// Endpoints are the client URLs to give NewClient.
func (e *Embedded) Endpoints() []string { return e.endpoints }

// Err reports a fatal server error after start.
func (e *Embedded) Err() <-chan error { return e.etcd.Err() }

// Close stops the server. Close clients (and their watches) first: etcd
// waits several seconds for open watches before it stops. Close is safe to
// call more than once.
func (e *Embedded) Close() error {
	var err error
	e.closeOnce.Do(func() {
		e.etcd.Close()
		err = e.lock.Close()
	})
	return err
}

// privateDir makes dir, and its missing parents, with mode 0700, and
// returns its absolute path. An existing empty dir (one made by mkdir or
// t.TempDir) is made 0700 too. A dir with content that its group or
// others can enter is refused rather than tightened: it may be shared on
// purpose (a --data-dir of "." or of a home directory). etcd itself only
// warns (fileutil.CheckDirPermission), which would leave the socket
// reachable for the moment before its mode is set.
func privateDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("etcdstorage: data directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("etcdstorage: data directory: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("etcdstorage: data directory: %w", err)
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return abs, nil
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", fmt.Errorf("etcdstorage: data directory: %w", err)
	}
	if len(entries) > 0 {
		return "", fmt.Errorf("etcdstorage: data directory %s has mode %04o: it holds the embedded etcd's socket and data, so only its owner may use it (chmod 0700 %s)", abs, perm, abs)
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return "", fmt.Errorf("etcdstorage: data directory: %w", err)
	}
	return abs, nil
}

// Client connects to the embedded server through its socket, then
// serves reads, writes, watches and leases in-process (etcd's v3client
// adapters): for a single member that specd owns, gRPC over the socket
// was a quarter of the CPU of a write (docs/performance.md, "The
// embedded etcd in-process"). Maintenance, cluster and auth calls stay on
// the socket, where the member answers Status by endpoint and
// Defragment does not panic as the in-process adapter's does. Close the
// client before the server.
func (e *Embedded) Client(ctx context.Context) (*clientv3.Client, error) {
	cli, err := NewClient(ctx, e.endpoints)
	if err != nil {
		return nil, err
	}
	in := v3client.New(e.etcd.Server)
	cli.KV, cli.Watcher, cli.Lease = in.KV, in.Watcher, in.Lease
	return cli, nil
}
