package chaos

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testschemas"
)

// replica is one `specd serve` on the cluster; it serves on a port the
// kernel picks, so a restart moves it (url).
type replica struct {
	proc
	addr atomic.Pointer[string]
}

var servingLine = regexp.MustCompile(`msg=serving address=(http://\S+)`)

// startReplicas starts n specd replicas on c, serving the Thing schema.
func startReplicas(t *testing.T, c *cluster, n int) []*replica {
	t.Helper()
	schemaDir, plugins := t.TempDir(), t.TempDir()
	testschemas.WriteFiles(t, schemaDir, map[string]string{"things.yaml": testschemas.Things})
	var rs []*replica
	for i := range n {
		dataDir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dataDir, 0o700); err != nil {
			t.Fatal(err)
		}
		r := &replica{proc: proc{name: fmt.Sprintf("specd %c", 'a'+i), args: []string{binaries.specd, "serve",
			"--listen", "127.0.0.1:0", "--insecure-serving", "--schemas", schemaDir, "--plugins", plugins,
			"--data-dir", dataDir, "--etcd-servers", strings.Join(c.endpoints, ",")}}}
		r.start(t)
		t.Cleanup(func() {
			r.kill9()
			if t.Failed() {
				t.Logf("--- %s ---\n%s", r.name, r.output())
			}
		})
		rs = append(rs, r)
	}
	for _, r := range rs {
		r.awaitServing(t)
	}
	return rs
}

// awaitServing waits until the replica says where it serves and answers
// /readyz there.
func (r *replica) awaitServing(t *testing.T) {
	t.Helper()
	m, err := r.await(servingLine, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	r.addr.Store(&m[1])
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(m[1] + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not ready within a minute: %v", r.name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// restart starts the replica again and waits until it serves.
func (r *replica) restart(t *testing.T) {
	t.Helper()
	r.start(t)
	r.awaitServing(t)
}

func (r *replica) url() string { return *r.addr.Load() }

// do sends a JSON request to the replica and returns the status and body.
func (r *replica) do(client *http.Client, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, r.url()+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
