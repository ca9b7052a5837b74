// Command etcdmember runs one member of an etcd cluster for the chaos
// test (test/chaos): go.etcd.io/etcd/server/v3/embed in a process of its
// own, so that the test can kill it with SIGKILL. Peers talk over unix
// sockets named relative to the working directory (unix://NAME:1, as
// etcd's own tests name them), clients over a unix socket at an absolute
// path: no port is picked. It prints "ready" once the member serves, and
// runs until it is killed or SIGTERM stops it.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "etcdmember:", err)
		os.Exit(1)
	}
}

func run() error {
	name := flag.String("name", "", "member name")
	dir := flag.String("data-dir", "", "data directory")
	peer := flag.String("peer", "", "peer URL: unix://NAME:PORT, a socket in the working directory")
	client := flag.String("client", "", "client socket: an absolute path")
	cluster := flag.String("initial-cluster", "", "NAME=PEER,... of every member")
	flag.Parse()
	peerURL, err := url.Parse(*peer)
	if err != nil {
		return fmt.Errorf("-peer: %w", err)
	}
	clientURL := url.URL{Scheme: "unix", Path: *client}
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = *name, *dir
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peerURL}, []url.URL{*peerURL}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{clientURL}, []url.URL{clientURL}
	cfg.InitialCluster = *cluster
	cfg.InitialClusterToken = "chaos"
	// Elections within a second, as on a LAN; no fsync, which a process
	// kill (the page cache survives it) does not need.
	cfg.TickMs, cfg.ElectionMs = 50, 500
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "error"
	cfg.EnableGRPCGateway = false
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-e.Server.ReadyNotify():
		fmt.Println("ready")
	case err := <-e.Err():
		return err
	case <-stop:
		return nil
	}
	select {
	case err := <-e.Err():
		return err
	case <-stop:
		return nil
	}
}
