package engine

import (
	"context"
	"strings"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// What the namespace lifecycle (engine/namespace) reads beyond the verbs:
// which namespaces hold objects, from the keys alone.

// HeldNamespaces returns, in order, the namespaces that hold at least one
// object of r, a namespaced resource. It reads one object per namespace,
// not every object: each read starts past the keys of the namespace before
// (the keys are <prefix><group>/<plural>/<namespace>/<name>).
func (s *Store) HeldNamespaces(ctx context.Context, r *schemas.Resource) ([]string, error) {
	prefix := s.listPrefix(r, "")
	var out []string
	opts := storage.ListOptions{Limit: 1}
	for {
		res, err := s.storage.List(ctx, prefix, opts)
		if err != nil {
			return nil, err
		}
		if len(res.Items) == 0 {
			return out, nil
		}
		ns, _, ok := strings.Cut(res.Items[0].Key[len(prefix):], "/")
		if !ok { // not an object key of a namespaced resource
			return out, nil
		}
		out = append(out, ns)
		// '0' follows '/': the first key past every key of ns.
		opts.StartKey, opts.Revision = prefix+ns+"0", res.Revision
		if !res.More {
			return out, nil
		}
	}
}
