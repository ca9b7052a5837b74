package celrules

import (
	"crypto/sha256"
	"encoding/json"
	"runtime"
	"sync"
	"weak"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
)

// cacheKey is the SHA-256 of a schema as the CEL stack reads it (the
// JSONSchemaProps that Compile builds): structure, types, formats, size
// limits, x-kubernetes-* extensions and the rules themselves, so that
// any change that could change the compiled rules changes the key.
type cacheKey [sha256.Size]byte

// ruleCache holds the compiled Rules of the schemas that something still
// uses, by the schema they were compiled from. A reload parses every CRD
// object again and a CRD write is checked by compiling it, and compiling
// costs about a millisecond a rule; a schema that did not change gets
// the Rules it had.
//
// The entries are weak: once no registry, parsed file or declaration
// holds a Rules (its schema was removed or changed, and the registry
// that served it is gone), the garbage collector frees it and its entry
// goes, so the cache never holds more than what is loaded.
//
// It is the package's one piece of state, shared by every Loader: the
// memo of a pure function (same schema, same immutable Rules), so it
// changes nothing but the time a load takes, and no caller need carry it.
type ruleCache struct {
	mu      sync.Mutex
	entries map[cacheKey]weak.Pointer[Rules]
}

var compiled = &ruleCache{entries: map[cacheKey]weak.Pointer[Rules]{}}

// keyOf is the cache key of props; ok is false when it cannot be
// made, and then nothing is cached.
func keyOf(props *apiextensions.JSONSchemaProps) (cacheKey, bool) {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(props); err != nil {
		return cacheKey{}, false
	}
	var key cacheKey
	h.Sum(key[:0])
	return key, true
}

// get returns the live Rules compiled from the schema of key, nil for none.
func (c *ruleCache) get(key cacheKey) *Rules {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[key].Value()
}

// put records r as compiled from the schema of key, until r is freed.
func (c *ruleCache) put(key cacheKey, r *Rules) {
	c.mu.Lock()
	c.entries[key] = weak.Make(r)
	c.mu.Unlock()
	runtime.AddCleanup(r, c.drop, key)
}

// drop removes the entry of key once its Rules are freed, unless it was
// compiled again since.
func (c *ruleCache) drop(key cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key].Value() == nil {
		delete(c.entries, key)
	}
}

// len is the number of entries, freed ones not yet dropped included.
func (c *ruleCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// reset forgets every entry (benchmarks of a first load).
func (c *ruleCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}
