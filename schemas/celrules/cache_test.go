package celrules

import (
	"runtime"
	"strings"
	"testing"
)

// TestCompileCache: a schema compiled again while its Rules are in use
// gets the same Rules; any change the CEL stack reads (a rule, a message,
// a size limit) compiles anew; Rules that nothing holds are dropped.
func TestCompileCache(t *testing.T) {
	first := mustCompile(t, benchSchema())
	if again := mustCompile(t, benchSchema()); again != first {
		t.Fatal("the same schema was compiled again while its Rules are in use")
	}
	changes := map[string][2]string{
		"rule":      {`self.replicas <= 100`, `self.replicas <= 99`},
		"message":   {`"message":"mode"`, `"message":"the mode"`},
		"maxLength": {`"mode":{"type":"string","maxLength":8}`, `"mode":{"type":"string","maxLength":9}`},
		"list type": {`"x-kubernetes-list-type":"map"`, `"x-kubernetes-list-type":"map","x-kubernetes-map-type":"atomic"`},
	}
	for name, c := range changes {
		t.Run(name, func(t *testing.T) {
			changed := strings.Replace(benchSchema(), c[0], c[1], 1)
			if changed == benchSchema() {
				t.Fatalf("%q is not in the schema", c[0])
			}
			if r := mustCompile(t, changed); r == first {
				t.Fatal("a changed schema got the Rules of the old one")
			}
		})
	}
	runtime.KeepAlive(first)
	first = nil
	key := cacheKeyOf(t, benchSchema())
	for i := 0; i < 100 && compiled.has(key); i++ {
		runtime.GC() // frees the Rules; their cleanup drops the entry
		runtime.Gosched()
	}
	if compiled.has(key) {
		t.Fatal("the entry of Rules that nothing holds was not dropped")
	}
}

// cacheKeyOf is the cache key of a JSON schema with rules.
func cacheKeyOf(t *testing.T, schemaJSON string) cacheKey {
	t.Helper()
	conv := converter{}
	props := conv.props(parseSchema(t, schemaJSON), "")
	key, ok := keyOf(&props)
	if !ok {
		t.Fatal("no cache key")
	}
	return key
}

// has reports whether key has an entry, freed or not.
func (c *ruleCache) has(key cacheKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[key]
	return ok
}
