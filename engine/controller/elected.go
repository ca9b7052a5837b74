package controller

import (
	"context"
	"log/slog"
	"os"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// LeaderKey is the etcd key prefix of the election of the replica that
// runs the controllers; outside the objects' prefix.
const LeaderKey = "/specd-leader/controllers"

// ElectedStore is what RunElectedControllers reads and writes: what its
// controllers need, and the List that AwaitWork polls. *engine.Store
// satisfies it.
type ElectedStore interface {
	Store
	Lister
}

// ElectedConfig configures RunElectedControllers.
type ElectedConfig struct {
	// Client is the etcd client the election runs on.
	Client *clientv3.Client
	// Address is where this replica serves; with the host name and the
	// process id it names the replica in the election.
	Address    string
	Store      ElectedStore
	Reconciler hook.Reconciler
	// Registry returns the current registry; the controllers follow it.
	Registry func() *schemas.Registry
	// Workers per controller; DefaultWorkers when 0.
	Workers int
	Logger  *slog.Logger
}

// RunElectedControllers runs a Controller per resource bound to a
// reconcile plugin, in the one replica elected among those on the same
// etcd, until ctx ends; it then waits for them to stop, and resigns. The
// replica campaigns only once such a resource has an object (AwaitWork);
// the controllers follow schema reloads (Manager.Follow).
func RunElectedControllers(ctx context.Context, cfg ElectedConfig) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m := NewManager(ManagerConfig{Store: cfg.Store, Reconciler: cfg.Reconciler, Workers: cfg.Workers,
		Logger: cfg.Logger.With("component", "controllers")})
	// Campaigning writes to etcd; a specd with nothing to reconcile leaves
	// it alone.
	AwaitWork(ctx, cfg.Store, cfg.Registry)
	election := ElectionConfig{Client: cfg.Client, Key: LeaderKey, ID: ReplicaID(cfg.Address), Logger: cfg.Logger}
	RunElected(ctx, election, func(ctx context.Context) { m.Follow(ctx, cfg.Registry) })
}

// ReplicaID names this process among the replicas in an election: host,
// address, pid.
func ReplicaID(address string) string {
	host, _ := os.Hostname()
	return host + "/" + address + "/" + strconv.Itoa(os.Getpid())
}
