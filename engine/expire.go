package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/specd-io/specd/engine/storage"
)

// expiringKeys sends the writes of the resources that expire (Options.TTL)
// to the storage's expiring view, and every other write to the storage
// itself: a resource without a TTL pays one prefix comparison per TTL
// resource (events alone, in practice) on a write, nothing on a read.
type expiringKeys struct {
	storage.Storage
	prefixes []string // <prefix><group>/<plural>/
	views    []storage.Storage
}

// expireKeys wraps st so that writes of the resources ttl names (by
// plural.group) expire ttl after them. A storage that cannot expire keys
// keeps them, which is logged; a TTL <= 0 means no expiry.
func expireKeys(st storage.Storage, prefix string, ttl map[string]time.Duration, log *slog.Logger) storage.Storage {
	if st == nil || len(ttl) == 0 {
		return st
	}
	exp, ok := st.(storage.Expirer)
	if !ok {
		log.Error("engine: the storage cannot expire objects; they are kept", "resources", fmt.Sprint(ttl))
		return st
	}
	e := expiringKeys{Storage: st}
	names := make([]string, 0, len(ttl))
	for name := range ttl {
		names = append(names, name)
	}
	sort.Strings(names) // the same routing whatever the map's order
	for _, name := range names {
		if ttl[name] <= 0 {
			continue
		}
		e.prefixes = append(e.prefixes, resourcePrefix(prefix, name))
		e.views = append(e.views, exp.Expiring(ttl[name]))
	}
	if len(e.views) == 0 {
		return st
	}
	return e
}

// resourcePrefix is the key prefix of the resource named plural.group
// (a plural alone for the core group), as Keys.Object builds keys.
func resourcePrefix(prefix, groupResource string) string {
	plural, group, _ := strings.Cut(groupResource, ".")
	return prefix + GroupKey(group) + "/" + plural + "/"
}

// route is the storage that writes key.
func (e expiringKeys) route(key string) storage.Storage {
	for i, p := range e.prefixes {
		if strings.HasPrefix(key, p) {
			return e.views[i]
		}
	}
	return e.Storage
}

func (e expiringKeys) Create(ctx context.Context, key string, value []byte) (int64, error) {
	return e.route(key).Create(ctx, key, value)
}

func (e expiringKeys) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	return e.route(key).Update(ctx, key, value, expectedRevision)
}
