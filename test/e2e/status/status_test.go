package status

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
)

// statusViewer binds the view role to val, who reads specd's status but
// plugins.
const statusViewer = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: val-views}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: val}]
`

// statusServer is a secure specd serving the example schemas and a
// Gadget file from a directory the test changes.
func statusServer(t *testing.T) (*harness.Specd, *harness.Kubectl, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(harness.ExampleSchemas)); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{Props: []string{testschemas.SizeProp, testschemas.ColorProp}}))
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, Secure: true})
	return s, harness.NewKubectl(t, s), dir
}

// TestStatusResources: specd's own state is served as read-only
// status.specd.io resources: kubectl lists them with their columns, a
// watch sees a broken file and a refused reload as they happen, no one
// writes them, and view reads them but plugins, replicas and etcd
// members.
func TestStatusResources(t *testing.T) {
	t.Parallel()
	s, k, dir := statusServer(t)
	t.Run("discovery", func(t *testing.T) {
		got := strings.Fields(k.OK(t, "api-resources", "--api-group=status.specd.io", "-o", "name"))
		want := []string{"conversions.status.specd.io", "etcdmembers.status.specd.io", "plugins.status.specd.io", "replicas.status.specd.io",
			"schemafiles.status.specd.io", "schemareloads.status.specd.io", "storagemigrations.status.specd.io"}
		if !slices.Equal(got, want) {
			t.Errorf("api-resources: %v, want %v", got, want)
		}
	})
	t.Run("columns", func(t *testing.T) { testStatusColumns(t, s, k) })
	watch := openStatusWatch(t, s, "schemafiles")
	t.Run("a broken file", func(t *testing.T) {
		harness.WriteFile(t, dir, "broken.yaml", "openapi: 3.0.3\ninfo: {title: x, version: v1}\nx-specd: {group: 7}\n")
		ev := watch.until(t, func(e statusEvent) bool { return e.Object.Metadata.Name == "broken.yaml" })
		if ev.Object.Status.Phase != "Failed" || len(ev.Object.Status.Problems) == 0 ||
			ev.Object.Status.Problems[0].Pointer != "/x-specd/group" || ev.Object.Status.Problems[0].File != "broken.yaml" {
			t.Errorf("watch event of broken.yaml: %+v", ev)
		}
		got := k.OK(t, "get", "schemareloads", "--field-selector", "status.result=Failed", "-o", "jsonpath={.items[*].status.trigger}")
		if got != "change" {
			t.Errorf("failed reloads' triggers: %q, want change", got)
		}
		if err := os.Remove(filepath.Join(dir, "broken.yaml")); err != nil {
			t.Fatal(err)
		}
		watch.until(t, func(e statusEvent) bool { return e.Type == "DELETED" && e.Object.Metadata.Name == "broken.yaml" })
	})
	t.Run("a refused reload", func(t *testing.T) {
		harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{Props: []string{testschemas.SizeProp}}))
		watch.until(t, func(e statusEvent) bool {
			return e.Object.Metadata.Name == "gadgets.yaml" && e.Object.Status.Phase == "Failed"
		})
		out := k.OK(t, "get", "schemareloads", "--field-selector", "status.result=Refused", "-o",
			"jsonpath={.items[0].status.problems[0].rule} {.items[0].status.problems[0].file} {.items[0].status.hint}")
		if !strings.HasPrefix(out, "field-removed gadgets.yaml ") || !strings.Contains(out, "allowBreaking") {
			t.Errorf("the refused reload: %q, want field-removed in gadgets.yaml and the allowBreaking hint", out)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		for _, args := range [][]string{{"delete", "plugin", "ship-policy"}, {"annotate", "schemafile", "gadgets.yaml", "a=b"}} {
			if stderr := k.Fail(t, args...); !strings.Contains(stderr, "MethodNotAllowed") {
				t.Errorf("kubectl %v: %q, want MethodNotAllowed", args, stderr)
			}
		}
	})
	t.Run("view", func(t *testing.T) {
		k.OK(t, "apply", "-f", k.Manifest(t, "val.yaml", statusViewer))
		harness.Eventually(t, "val reads schema files", func() bool { return k.Run(t, "get", "schemafiles", "--as", "val").Code == 0 })
		for _, res := range []string{"schemareloads", "conversions", "storagemigrations"} {
			k.OK(t, "get", res, "--as", "val")
		}
		for _, res := range []string{"plugins", "replicas", "etcdmembers"} {
			if stderr := k.Fail(t, "get", res, "--as", "val"); !strings.Contains(stderr, "Forbidden") {
				t.Errorf("val lists %s: %q, want Forbidden", res, stderr)
			}
		}
	})
}

// testStatusColumns: each kind's printer columns say what it is about.
func testStatusColumns(t *testing.T, s *harness.Specd, k *harness.Kubectl) {
	files := harness.ParseTable(t, k.OK(t, "get", "schemafiles"))
	if row := files.Row("NAME", "shop.example.com.v1.yaml"); row["PATH"] != "shop.example.com/v1.yaml" || row["PHASE"] != "Loaded" ||
		row["KINDS"] != "Book, Warehouse, Widget" || row["PROBLEMS"] != "0" {
		t.Errorf("schema file shop.example.com/v1.yaml: %v", row)
	}
	conv := harness.ParseTable(t, k.OK(t, "get", "conversions"))
	if row := conv.Row("NAME", "widgets.shop.example.com"); row["STORAGE"] != "v1" || row["VERSIONS"] != "v1, v2beta1" || row["LOSSLESS"] != "Proven" {
		t.Errorf("conversion of widgets: %v", row)
	}
	plugins := harness.ParseTable(t, k.OK(t, "get", "plugins"))
	if row := plugins.Row("NAME", "ship-policy"); row["BINDINGS"] != "2" || row["ROLE"] != "system:specd:plugin:ship-policy" || row["RESTARTS"] != "0" {
		t.Errorf("plugin ship-policy: %v", row)
	}
	if got := k.OK(t, "get", "schemareloads", "-o", "jsonpath={.items[0].status.result}/{.items[0].status.trigger}"); got != "Applied/initial" {
		t.Errorf("first reload: %q, want Applied/initial", got)
	}
	// The one replica leads, on the address it serves; the embedded etcd
	// is one healthy member, its leader.
	harness.Eventually(t, "the replica leads", func() bool {
		return k.OK(t, "get", "replicas", "-o", "jsonpath={.items[*].status.role} {.items[*].status.address}") == "Leader "+s.Addr
	})
	if got := k.OK(t, "get", "etcdmembers", "-o", "jsonpath={.items[*].status.health} {.items[*].status.leader}"); got != "Healthy true" {
		t.Errorf("etcd members: %q, want one Healthy leader", got)
	}
}

// statusEvent is one watch event of a status.specd.io object.
type statusEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct{ Name string } `json:"metadata"`
		Status   struct {
			Phase    string `json:"phase"`
			Problems []struct{ File, Pointer, Message string }
		} `json:"status"`
	} `json:"object"`
}

type statusWatch struct{ events chan statusEvent }

// openStatusWatch watches the status.specd.io resource plural as the
// admin, from now.
func openStatusWatch(t *testing.T, s *harness.Specd, plural string) *statusWatch {
	t.Helper()
	client := *s.Client
	client.Timeout = 0
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/apis/status.specd.io/v1alpha1/"+plural+"?watch=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: %s", plural, resp.Status)
	}
	t.Cleanup(func() { resp.Body.Close() })
	w := &statusWatch{events: make(chan statusEvent, 100)}
	go func() {
		defer close(w.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev statusEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				w.events <- ev
			}
		}
	}()
	return w
}

// statusWatchTimeout bounds the wait for an event: a file change is
// seen by the directory watch and reloaded in about a second.
const statusWatchTimeout = 10 * time.Second

// until returns the first event ok accepts, failing the test if none
// comes within statusWatchTimeout.
func (w *statusWatch) until(t *testing.T, ok func(statusEvent) bool) statusEvent {
	t.Helper()
	deadline := time.After(statusWatchTimeout)
	for {
		select {
		case ev, open := <-w.events:
			if !open {
				t.Fatal("the watch ended")
			}
			if ok(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no such event within %s", statusWatchTimeout)
		}
	}
}

// TestConsoleFlag: the console's files answer anyone, with no
// credentials, and --console=false serves none.
func TestConsoleFlag(t *testing.T) {
	t.Parallel()
	on := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	off := harness.StartSpecd(t, harness.SpecdOptions{Secure: true, Args: []string{"--console=false"}})
	for _, tc := range []struct {
		s    *harness.Specd
		code int
	}{{on, http.StatusOK}, {off, http.StatusNotFound}} {
		resp, err := anonymousClient(t, tc.s).Get(tc.s.URL + "/console/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("GET /console/ without credentials, %v: %s, want %d", tc.s.Options().Args, resp.Status, tc.code)
		}
	}
}

// TestConsoleKeepsConnections: the page loads its files anonymously over
// one HTTP/2 connection, which stays open; an anonymous API request still
// closes its connection (kube's mitigation of HTTP/2 abuse). When every
// file closed its connection, Chromium failed modules requested on the
// closing one and the page stayed blank.
func TestConsoleKeepsConnections(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	client := anonymousClient(t, s)
	get(t, client, s.URL+"/console/")
	for _, path := range []string{"/console/app.js", "/console/icon.svg", "/console/config.json", "/api"} {
		if !get(t, client, s.URL+path) {
			t.Errorf("GET %s opened a new connection, want the one the page's files used", path)
		}
	}
	// The GOAWAY that /api's answer asked for reaches the client after the
	// answer: the next file comes over a new connection soon after.
	for deadline := time.Now().Add(10 * time.Second); get(t, client, s.URL+"/console/"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the connection of an anonymous API request stayed open")
		}
	}
}

// get GETs url over HTTP/2 and says whether it went over a connection
// used before.
func get(t *testing.T, client *http.Client, url string) (reused bool) {
	t.Helper()
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("GET %s: %s, want HTTP/2", url, resp.Proto)
	}
	return reused
}

// anonymousClient trusts the CA specd generated and sends no
// credentials.
func anonymousClient(t *testing.T, s *harness.Specd) *http.Client {
	t.Helper()
	ca, err := os.ReadFile(filepath.Join(s.DataDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: harness.ClientTimeout, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
}
