package engine

import (
	"fmt"

	"github.com/specd-io/specd/converters"
)

// Conversion keeps, on an object of one version, the data that version
// cannot hold, in the converters.Annotation annotation. That bookkeeping
// is specd's, not the client's: clients never see it, never write it, and
// never lose the data it keeps.
//
//   - Every read hides it: toVersion removes it from what get, list,
//     watch, the answer of a write, Table rows and patch bases show.
//   - Every write puts it back: an update, patch, apply or status write
//     starts from the stored object in the request's version, and its
//     annotation goes on the new object just before the object is
//     converted to the storage version (encodeUpdate, replace.go), after the
//     managed fields are tracked, so it is never a field of the client's.
//     A client of a narrow version that reads, changes and writes back an
//     object keeps what only the wider versions hold.
//   - A value a client sends is ignored with a warning, as kube-apiserver
//     ignores the server-owned metadata a body carries: honouring it would
//     let a client write fields of another version unchecked.

// hideBookkeeping returns obj, an object in a client's version, without
// the bookkeeping annotation. obj is not modified.
func hideBookkeeping(obj []byte) ([]byte, error) {
	out, _, err := splitBookkeeping(obj)
	return out, err
}

// splitBookkeeping is converters.SplitBookkeeping with its error as a
// Status.
func splitBookkeeping(obj []byte) ([]byte, string, error) {
	out, bk, err := converters.SplitBookkeeping(obj)
	if err != nil {
		return nil, "", fmt.Errorf("engine: %w", err)
	}
	return out, bk, nil
}

// keepBookkeeping puts the stored object's bookkeeping on the object about
// to be written, in the same version, and reports whether there was any.
func (req *request) keepBookkeeping(old *stored) bool {
	if old.bookkeeping == "" {
		return false
	}
	// A status write's object is a copy of the stored one: not metaMap.
	md, ok := req.obj["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		req.obj["metadata"] = md
	}
	a, ok := md["annotations"].(map[string]any)
	if !ok {
		a = map[string]any{}
		md["annotations"] = a
	}
	a[converters.Annotation] = old.bookkeeping
	return true
}

// decodingWarnings are the warnings about a decoded body that strict field
// validation turns into errors: all but the one about the bookkeeping,
// which is ignored whatever the field validation.
func decodingWarnings(warnings []string) []string {
	out := warnings[:0:0]
	for _, w := range warnings {
		if w != bookkeepingIgnored {
			out = append(out, w)
		}
	}
	return out
}
