package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// cluster is three etcd members, each a process (etcdmember), in dir.
type cluster struct {
	dir     string
	members []*proc
	// endpoints are the members' client URLs, in member order.
	endpoints []string
	client    *clientv3.Client
}

var readyLine = regexp.MustCompile(`(?m)^ready$`)

func startCluster(t *testing.T) *cluster {
	t.Helper()
	// Short: a unix socket path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "chaos-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c := &cluster{dir: dir}
	var initial []string
	for i := range 3 {
		initial = append(initial, fmt.Sprintf("m%d=unix://m%d.peer:1", i, i))
	}
	for i := range 3 {
		socket := filepath.Join(dir, fmt.Sprintf("m%d.sock", i))
		c.endpoints = append(c.endpoints, "unix://"+socket)
		c.members = append(c.members, &proc{name: fmt.Sprintf("etcd m%d", i), dir: dir, args: []string{binaries.etcdmember,
			"-name", fmt.Sprintf("m%d", i), "-data-dir", fmt.Sprintf("m%d.data", i), "-peer", fmt.Sprintf("unix://m%d.peer:1", i),
			"-client", socket, "-initial-cluster", strings.Join(initial, ",")}})
	}
	for _, m := range c.members {
		m.start(t)
		t.Cleanup(m.kill9)
	}
	for _, m := range c.members {
		if _, err := m.await(readyLine, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if c.client, err = clientv3.New(clientv3.Config{Endpoints: c.endpoints, DialTimeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.client.Close() })
	return c
}

// leader is the index of the member that leads now.
func (c *cluster) leader(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for i, ep := range c.endpoints {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st, err := c.client.Status(ctx, ep)
			cancel()
			if err == nil && st.Leader != 0 && st.Leader == st.Header.MemberId {
				return i
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no etcd leader within 20s")
	return -1
}

// restart starts member i again on its data and waits until it serves.
func (c *cluster) restart(t *testing.T, i int) {
	t.Helper()
	c.members[i].start(t)
	if _, err := c.members[i].await(readyLine, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}
