package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/schemas"
)

// storeKeyPrefix is the key prefix specd serve stores objects under
// (engine.Options.Prefix when empty): <prefix><group>/<plural>/...
const storeKeyPrefix = "/specd/"

// storedPage is how many objects one read of etcd returns.
const storedPage = 500

// lister is the one Storage call check needs: it only reads.
type lister interface {
	List(ctx context.Context, prefix string, opts engine.ListOptions) (engine.ListResult, error)
}

// etcdObjects reads from etcd in which versions the objects of a resource
// are stored, for `specd check --etcd-servers`. It connects on the first
// read, so a check that removes no version never dials etcd; every read
// is bounded by timeout.
type etcdObjects struct {
	endpoints []string
	prefix    string
	timeout   time.Duration
	log       *slog.Logger

	once    sync.Once
	list    lister
	close   func()
	dialErr error
}

var _ check.StoredObjects = (*etcdObjects)(nil)

func (e *etcdObjects) connect(ctx context.Context) error {
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, e.timeout)
		defer cancel()
		cli, err := etcdstorage.NewClientWithLogger(ctx, e.endpoints, e.log)
		if err != nil {
			e.dialErr = err
			return
		}
		e.list, e.close = etcdstorage.New(cli), func() { _ = cli.Close() }
	})
	return e.dialErr
}

// Close closes the connection, if one was made.
func (e *etcdObjects) Close() {
	if e.close != nil {
		e.close()
	}
}

// StoredVersions counts the objects of res by the version in their
// apiVersion, reading every key of the resource page by page from one
// snapshot. Nothing is written.
func (e *etcdObjects) StoredVersions(ctx context.Context, res *schemas.Resource) (map[string]check.Stored, error) {
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	prefix := e.prefix + res.Group + "/" + res.Plural + "/"
	out := map[string]check.Stored{}
	opts := engine.ListOptions{Limit: storedPage}
	for {
		page, err := e.list.List(ctx, prefix, opts)
		if err != nil {
			return nil, fmt.Errorf("read the objects of %s from etcd: %w", res.GroupResource(), err)
		}
		for _, kv := range page.Items {
			av := gjson.GetBytes(kv.Value, "apiVersion").Str
			v := av[strings.LastIndexByte(av, '/')+1:]
			st := out[v]
			if st.Count == 0 {
				st.Example = strings.TrimPrefix(kv.Key, prefix)
			}
			st.Count++
			out[v] = st
		}
		if !page.More || len(page.Items) == 0 {
			return out, nil
		}
		opts.StartKey = page.Items[len(page.Items)-1].Key + "\x00"
		opts.Revision = page.Revision
	}
}
