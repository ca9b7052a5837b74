package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// frobbers is the Frobber of examples/conversion: v1 declares rules that
// map it to the storage version v2 (renamed fields, a scalar that becomes
// a list, an enum, a split string, a constant).
const frobbers = "/apis/frob.example.com/%s/namespaces/default/frobbers"

// TestConversionRules writes and reads one object through both versions of
// a resource whose versions differ in shape, with the real server: what a
// client of each version gets back is what it wrote, and what the other
// version sees is the rules' mapping.
func TestConversionRules(t *testing.T) {
	s := startSpecd(t, specdOptions{Schemas: filepath.Join(repoRoot, "examples", "conversion")})
	client := &http.Client{Timeout: 10 * time.Second}
	url := func(version, name string) string {
		u := s.URL + fmt.Sprintf(frobbers, version)
		if name != "" {
			u += "/" + name
		}
		return u
	}

	v1 := `{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"f"},
		"spec":{"height":10,"width":20,"param":"p1","mode":"fast","command":"run --fast now"}}`
	created := do(t, client, http.MethodPost, url("v1", ""), "application/json", v1)
	if created.Code != http.StatusCreated {
		t.Fatalf("create in v1: %d %s", created.Code, created.Body)
	}
	expect(t, "create answer in v1", created.Body, map[string]string{"apiVersion": "frob.example.com/v1",
		"spec.height": "10", "spec.width": "20", "spec.param": "p1", "spec.mode": "fast", "spec.command": "run --fast now"})
	if gjson.Get(created.Body, "metadata.annotations").Exists() {
		t.Errorf("the v1 answer shows conversion bookkeeping: %s", created.Body)
	}

	inV2 := do(t, client, http.MethodGet, url("v2", "f"), "", "")
	expect(t, "read in v2", inV2.Body, map[string]string{"apiVersion": "frob.example.com/v2",
		"spec.heightInInches": "10", "spec.widthInInches": "20", "spec.params": `["p1"]`,
		"spec.mode": "Fast", "spec.args": `["run","--fast","now"]`, "spec.unit": "inches"})

	// An update in v2 that v1 cannot hold in full: a second param.
	updated := setJSON(t, inV2.Body, "spec.params", []string{"p1", "p2"})
	updated = setJSON(t, updated, "spec.heightInInches", 11)
	if put := do(t, client, http.MethodPut, url("v2", "f"), "application/json", updated); put.Code != http.StatusOK {
		t.Fatalf("update in v2: %d %s", put.Code, put.Body)
	}
	back := do(t, client, http.MethodGet, url("v1", "f"), "", "")
	expect(t, "read in v1 after the v2 update", back.Body, map[string]string{"spec.height": "11", "spec.param": "p1"})
	again := do(t, client, http.MethodGet, url("v2", "f"), "", "")
	expect(t, "read in v2 again", again.Body, map[string]string{"spec.params": `["p1","p2"]`, "spec.heightInInches": "11"})

	// A v1 client that replaces the object with what it read keeps what only
	// v2 can hold.
	if replace := do(t, client, http.MethodPut, url("v1", "f"), "application/json", back.Body); replace.Code != http.StatusOK {
		t.Fatalf("replace in v1: %d %s", replace.Code, replace.Body)
	}
	final := do(t, client, http.MethodGet, url("v2", "f"), "", "")
	expect(t, "read in v2 after a v1 replace", final.Body, map[string]string{"spec.params": `["p1","p2"]`})
}

// expect checks gjson paths of body against their raw JSON (strings
// unquoted).
func expect(t *testing.T, what, body string, want map[string]string) {
	t.Helper()
	for path, v := range want {
		got := gjson.Get(body, path)
		raw := got.Raw
		if got.Type == gjson.String {
			raw = got.String()
		}
		if raw != v {
			t.Errorf("%s: %s = %s, want %s\n%s", what, path, raw, v, body)
		}
	}
}

func setJSON(t *testing.T, doc, path string, v any) string {
	t.Helper()
	out, err := sjson.Set(doc, path, v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
