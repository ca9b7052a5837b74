package versions

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestConversionElements writes ports in the storage version v2 of the
// Frobber of examples/conversion, whose v1 maps every port element by rules
// (a renamed key, an enum), and lets a v1 client reorder, edit, remove and
// add ports through the real server: v1 never shows what only v2 holds of
// a port (appProtocol), and each port that is left keeps it.
func TestConversionElements(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: filepath.Join(harness.RepoRoot, "examples", "conversion")})
	client := &http.Client{Timeout: 10 * time.Second}
	url := func(version string) string {
		return s.URL + fmt.Sprintf(frobbers, version) + "/ports"
	}
	v2 := `{"apiVersion":"frob.example.com/v2","kind":"Frobber","metadata":{"name":"ports"},"spec":{"ports":[
		{"name":"http","port":80,"protocol":"TCP","appProtocol":"http"},
		{"name":"dns","port":53,"protocol":"UDP","appProtocol":"dns"},
		{"name":"grpc","port":9090,"protocol":"TCP","appProtocol":"h2c"}]}}`
	if created := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: s.URL + fmt.Sprintf(frobbers, "v2"), ContentType: "application/json", Body: v2}); created.Code != http.StatusCreated {
		t.Fatalf("create in v2: %d %s", created.Code, created.Body)
	}

	read := testhttp.Do(t, client, testhttp.Request{URL: url("v1")})
	expectValues(t, "read in v1", read.Body, map[string]string{"spec.ports": `[{"portName":"http","port":80,"protocol":"tcp"},` +
		`{"portName":"dns","port":53,"protocol":"udp"},{"portName":"grpc","port":9090,"protocol":"tcp"}]`})
	noBookkeeping(t, "read in v1", read.Body)

	// Reorder, edit a port, remove one, add one.
	ports := `[{"portName":"grpc","port":9090,"protocol":"tcp"},{"portName":"new","port":1,"protocol":"udp"},{"portName":"http","port":8080,"protocol":"tcp"}]`
	written := setRawJSON(t, read.Body, "spec.ports", ports)
	if put := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPut, URL: url("v1"), ContentType: "application/json", Body: written}); put.Code != http.StatusOK {
		t.Fatalf("update in v1: %d %s", put.Code, put.Body)
	} else {
		noBookkeeping(t, "update answer in v1", put.Body)
		expectValues(t, "update answer in v1", put.Body, map[string]string{"spec.ports": ports})
	}
	expectValues(t, "read in v2 after the v1 update", testhttp.Do(t, client, testhttp.Request{URL: url("v2")}).Body, map[string]string{
		"spec.ports": `[{"name":"grpc","port":9090,"protocol":"TCP","appProtocol":"h2c"},{"name":"new","port":1,"protocol":"UDP"},` +
			`{"name":"http","port":8080,"protocol":"TCP","appProtocol":"http"}]`})

	// A JSON patch in v1 that removes the first port.
	patch := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPatch, URL: url("v1"), ContentType: "application/json-patch+json", Body: `[{"op":"remove","path":"/spec/ports/0"}]`})
	if patch.Code != http.StatusOK {
		t.Fatalf("json patch in v1: %d %s", patch.Code, patch.Body)
	}
	final := testhttp.Do(t, client, testhttp.Request{URL: url("v2")})
	expectValues(t, "read in v2 after the v1 patch", final.Body, map[string]string{
		"spec.ports": `[{"name":"new","port":1,"protocol":"UDP"},{"name":"http","port":8080,"protocol":"TCP","appProtocol":"http"}]`})
	noBookkeeping(t, "read in v2", final.Body)
	if n := len(gjson.Get(final.Body, "spec.ports").Array()); n != 2 {
		t.Errorf("%d ports in v2, want 2", n)
	}
}

func setRawJSON(t *testing.T, doc, path, raw string) string {
	t.Helper()
	out, err := sjson.SetRaw(doc, path, raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// expectValues checks gjson paths of body against JSON values, key order
// and spacing aside.
func expectValues(t *testing.T, what, body string, want map[string]string) {
	t.Helper()
	for path, w := range want {
		var got, exp any
		if err := json.Unmarshal([]byte(gjson.Get(body, path).Raw), &got); err != nil {
			t.Errorf("%s: %s: %v\n%s", what, path, err, body)
			continue
		}
		if err := json.Unmarshal([]byte(w), &exp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: %s = %s, want %s", what, path, gjson.Get(body, path).Raw, w)
		}
	}
}
