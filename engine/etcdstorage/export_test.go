package etcdstorage

import (
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewWithKV is New with cli's KV wrapped, so that a test can make etcd's
// answers fail.
func NewWithKV(cli *clientv3.Client, wrap func(clientv3.KV) clientv3.KV) *Storage {
	s := New(cli)
	s.kv = wrap(s.kv)
	return s
}

// SetRetryWindow shortens how long s retries after a failure.
func (s *Storage) SetRetryWindow(d time.Duration) { s.retryWindow = d }

// SetTryTimeout shortens the deadline of one try of a request to etcd.
func (s *Storage) SetTryTimeout(d time.Duration) { s.tryTimeout = d }
