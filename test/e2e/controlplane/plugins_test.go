package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestPluginAdmission: the example ship-policy plugin defaults and
// validates ships, seen through kubectl and HTTP as kube's admission is.
func TestPluginAdmission(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	client := &http.Client{Timeout: 30 * time.Second}
	shipsURL := s.URL + "/apis/fleet.example.com/v1/namespaces/default/ships"

	// Defaulting: the schema has no default for spec.class, the plugin
	// sets it.
	k.OK(t, "create", "-f", k.Manifest(t, "ship.yaml", `apiVersion: fleet.example.com/v1
kind: Ship
metadata:
  name: endurance
spec:
  registry: Oslo
`))
	if got := k.OK(t, "get", "ship", "endurance", "-o", "jsonpath={.spec.class}"); got != "cargo" {
		t.Errorf("kubectl get: spec.class = %q, want the plugin's cargo", got)
	}
	resp := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: shipsURL, ContentType: "application/json", Body: `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"fram"},"spec":{"registry":"Bergen","captain":"Amundsen"}}`})

	if resp.Code != http.StatusCreated || harness.Path(harness.DecodeJSON(t, resp.Body), "spec", "class") != "cargo" {
		t.Errorf("POST: %d %s, want 201 with spec.class cargo", resp.Code, resp.Body)
	}
	// A class the client sets is kept.
	resp = testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: shipsURL, ContentType: "application/json", Body: `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"nautilus"},"spec":{"class":"passenger"}}`})

	if resp.Code != http.StatusCreated || harness.Path(harness.DecodeJSON(t, resp.Body), "spec", "class") != "passenger" {
		t.Errorf("POST with a class: %d %s", resp.Code, resp.Body)
	}
	// Dry run: defaulted and validated, not stored.
	resp = testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: shipsURL + "?dryRun=All", ContentType: "application/json", Body: `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"ghost"},"spec":{}}`})

	if resp.Code != http.StatusCreated || harness.Path(harness.DecodeJSON(t, resp.Body), "spec", "class") != "cargo" {
		t.Errorf("dry-run POST: %d %s", resp.Code, resp.Body)
	}
	if resp := testhttp.Do(t, client, testhttp.Request{URL: shipsURL + "/ghost"}); resp.Code != http.StatusNotFound {
		t.Errorf("the dry run stored ghost: %d", resp.Code)
	}

	// Validation with the old object: spec.registry cannot change.
	stderr := k.Fail(t, "patch", "ship", "endurance", "--type", "merge", "-p", `{"spec":{"registry":"Bergen"}}`)
	want := `The Ship "endurance" is invalid: spec.registry: Invalid value: "Bergen": field is immutable`
	if !strings.Contains(stderr, want) {
		t.Errorf("kubectl patch: stderr %q, want %q", stderr, want)
	}
	got := harness.DecodeJSON(t, testhttp.Do(t, client, testhttp.Request{URL: shipsURL + "/endurance"}).Body)
	body, _ := json.Marshal(map[string]any{"apiVersion": "fleet.example.com/v1", "kind": "Ship", "metadata": got["metadata"],
		"spec": map[string]any{"class": "tanker", "registry": "Hamburg"}})
	resp = testhttp.Do(t, client, testhttp.Request{Method: http.MethodPut, URL: shipsURL + "/endurance", ContentType: "application/json", Body: string(body)})
	st := harness.CheckStatus(t, resp, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause := metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "Hamburg": field is immutable`, Field: "spec.registry"}
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0] != wantCause {
		t.Errorf("PUT: details %+v, want the one cause %+v", st.Details, wantCause)
	}
	if r := k.OK(t, "get", "ship", "endurance", "-o", "jsonpath={.spec.registry}/{.spec.class}"); r != "Oslo/cargo" {
		t.Errorf("after the refused writes: %q, want Oslo/cargo", r)
	}
	// Other changes pass.
	k.OK(t, "patch", "ship", "endurance", "--type", "merge", "-p", `{"spec":{"captain":"Shackleton","class":"tanker"}}`)
	// A status write is admitted too, and may not touch spec.registry.
	k.OK(t, "patch", "ship", "endurance", "--subresource", "status", "--type", "merge", "-p", `{"status":{"position":"Weddell Sea"}}`)
	if r := k.OK(t, "get", "ship", "endurance", "-o", "jsonpath={.spec.captain}/{.status.position}"); r != "Shackleton/Weddell Sea" {
		t.Errorf("after the allowed writes: %q", r)
	}
	// A plugin's value that fails the schema is the plugin's fault; the
	// client's own is the client's.
	resp = testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: shipsURL, ContentType: "application/json", Body: `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"bad"},"spec":{"class":"rowboat"}}`})

	harness.CheckStatus(t, resp, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
}

// TestFleetReconciler: the example fleet-controller keeps a fleet's ships
// through edits, scaling and deletes by hand, reports status, and cleans
// up through its finalizer.
func TestFleetReconciler(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	dyn := harness.DynamicClient(t, s)
	ctx := harness.Context(t, 3*time.Minute)

	k.OK(t, "create", "-f", k.Manifest(t, "fleet.yaml", `apiVersion: fleet.example.com/v1
kind: Fleet
metadata:
  name: north
spec:
  replicas: 3
  class: tanker
`))
	harness.WaitShips(t, ctx, dyn, "north", 3)
	k.OK(t, "wait", "--for=condition=Ready", "fleet/north", "--timeout=30s")
	fleet := harness.WaitFleet(t, ctx, dyn, "north", 3)
	ship, err := dyn.Resource(harness.ShipsGVR).Namespace("default").Get(ctx, "north-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refs := ship.GetOwnerReferences()
	if len(refs) != 1 || refs[0].UID != fleet.GetUID() || refs[0].Controller == nil || !*refs[0].Controller ||
		refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
		t.Errorf("north-0 ownerReferences %+v, want the fleet as controller", refs)
	}
	if class, _, _ := unstructured.NestedString(ship.Object, "spec", "class"); class != "tanker" {
		t.Errorf("north-0 spec.class %q, want the fleet's tanker", class)
	}
	if !slices.Contains(fleet.GetFinalizers(), harness.ShipsFinalizer) {
		t.Errorf("fleet finalizers %v, want %s", fleet.GetFinalizers(), harness.ShipsFinalizer)
	}
	out := k.OK(t, "get", "fleets")
	if !strings.Contains(out, "north") || !strings.Contains(strings.Join(strings.Fields(out), " "), "3 3 tanker") {
		t.Errorf("kubectl get fleets:\n%s", out)
	}

	// Up and down.
	k.OK(t, "scale", "fleet", "north", "--replicas=5")
	harness.WaitShips(t, ctx, dyn, "north", 5)
	harness.WaitFleet(t, ctx, dyn, "north", 5)
	k.OK(t, "patch", "fleet", "north", "--type", "merge", "-p", `{"spec":{"replicas":1}}`)
	harness.WaitShips(t, ctx, dyn, "north", 1)
	harness.WaitFleet(t, ctx, dyn, "north", 1)

	// A ship deleted by hand comes back (a new one: another uid).
	old, err := dyn.Resource(harness.ShipsGVR).Namespace("default").Get(ctx, "north-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k.OK(t, "delete", "ship", "north-0")
	harness.Converge(t, "north-0 recreated", func() (bool, string) {
		cur, err := dyn.Resource(harness.ShipsGVR).Namespace("default").Get(ctx, "north-0", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return cur.GetUID() != old.GetUID(), string(cur.GetUID())
	})

	// Deleting the fleet: kubectl waits until the finalizer lets it go,
	// after the ships.
	k.OK(t, "delete", "fleet", "north", "--timeout=60s")
	if _, err := dyn.Resource(harness.FleetsGVR).Namespace("default").Get(ctx, "north", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("fleet after delete: %v, want NotFound", err)
	}
	harness.WaitShips(t, ctx, dyn, "north", 0)
}

// slowSchemas bind the test plugin "slow" (testdata/plugins/slow).
var slowSchemas = filepath.Join("testdata", "plugins", "schemas")

// buildSlow builds the test plugin "slow" into a plugins directory of its
// own and returns the directory.
func buildSlow(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := harness.GoBuild(harness.RepoRoot, "./test/e2e/controlplane/testdata/plugins/slow", filepath.Join(dir, "slow")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func slowObject(kind, name, sleep string) string {
	ann := ""
	if sleep != "" {
		ann = fmt.Sprintf(`,"annotations":{"test.specd.io/sleep":%q}`, sleep)
	}
	return fmt.Sprintf(`{"apiVersion":"slow.example.com/v1","kind":%q,"metadata":{"name":%q%s},"spec":{}}`, kind, name, ann)
}

func slowURL(s *harness.Specd, plural string) string {
	return s.URL + "/apis/slow.example.com/v1/namespaces/default/" + plural
}

// TestPluginTimeout: a plugin that hangs is cut off at its binding's
// timeout; the write is answered by the failure policy, and the plugin
// serves again afterwards.
func TestPluginTimeout(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: slowSchemas, Args: []string{"--plugins", buildSlow(t)}})
	client := &http.Client{Timeout: 60 * time.Second}

	start := time.Now()
	resp := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, "timers"), ContentType: "application/json", Body: slowObject("Timer", "t1", "30s")})
	took := time.Since(start)
	st := harness.CheckStatus(t, resp, http.StatusInternalServerError, metav1.StatusReasonInternalError)
	if !strings.Contains(st.Message, `failed calling plugin "slow" (default)`) || !strings.Contains(st.Message, "deadline") {
		t.Errorf("Fail: message %q, want the plugin, the hook and the deadline", st.Message)
	}
	if took < 900*time.Millisecond || took > 10*time.Second {
		t.Errorf("Fail: answered after %s, want about the 1s timeout", took)
	}

	start = time.Now()
	resp = testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, "lapses"), ContentType: "application/json", Body: slowObject("Lapse", "l1", "30s")})
	took = time.Since(start)
	if resp.Code != http.StatusCreated || harness.Path(harness.DecodeJSON(t, resp.Body), "spec", "defaultedBy") != nil {
		t.Errorf("Ignore: %d %s, want 201 without the plugin's default", resp.Code, resp.Body)
	}
	if took > 10*time.Second {
		t.Errorf("Ignore: answered after %s, want about the 1s timeout", took)
	}
	// Nothing of the refused write is stored; the plugin answers again.
	if r := testhttp.Do(t, client, testhttp.Request{URL: slowURL(s, "timers") + "/t1"}); r.Code != http.StatusNotFound {
		t.Errorf("the refused timer was stored: %d", r.Code)
	}
	harness.Converge(t, "the plugin answers again", func() (bool, string) {
		r := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, "timers"), ContentType: "application/json", Body: slowObject("Timer", "t2", "")})
		return r.Code == http.StatusCreated, r.Body
	})
}

// TestPluginMissing: a binding to a plugin that is not in --plugins stops
// specd serve, naming the file and the pointer of the binding.
func TestPluginMissing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	schemas, err := filepath.Abs(slowSchemas)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, harness.Binaries.Specd, "serve", "--schemas", schemas, "--data-dir", t.TempDir(),
		"--listen", "127.0.0.1:0", "--plugins", t.TempDir())
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("specd serve: %v, want exit 1\n%s", cmd.ProcessState, out)
	}
	want := filepath.Join(schemas, "v1.yaml") + `#/components/schemas/Probe/x-specd-hooks/default: default plugin "slow": the plugins directory `
	if !strings.Contains(string(out), want) {
		t.Errorf("output does not name the binding %q:\n%s", want, out)
	}
}

// TestPluginAddedWhileServing: a plugin put into --plugins while specd
// serves is found at the next schema reload, so a schema that binds it
// can be added without a restart; before the plugin is there, that
// schema is refused and the previous state keeps serving.
func TestPluginAddedWhileServing(t *testing.T) {
	t.Parallel()
	built := buildSlow(t)
	pluginsDir, schemasDir := t.TempDir(), t.TempDir()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: schemasDir, Args: []string{"--plugins", pluginsDir}})
	client := &http.Client{Timeout: 30 * time.Second}
	schema, err := os.ReadFile(filepath.Join(slowSchemas, "v1.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// The schema first: its binding names a plugin the directory lacks.
	harness.WriteFile(t, schemasDir, "slow.yaml", string(schema))
	harness.Converge(t, "the reload refused for the missing plugin", func() (bool, string) {
		r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/readyz?verbose"})
		return strings.Contains(r.Body, `default plugin "slow"`), r.Body
	})
	if r := testhttp.Do(t, client, testhttp.Request{URL: slowURL(s, "timers")}); r.Code != http.StatusNotFound {
		t.Fatalf("timers served with their plugin missing: %d %s", r.Code, r.Body)
	}

	// The plugin, copied in whole under another name and renamed, as an
	// installer should; then the schema is written again.
	bin, err := os.ReadFile(filepath.Join(built, "slow"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pluginsDir, ".slow.tmp"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(pluginsDir, ".slow.tmp"), filepath.Join(pluginsDir, "slow")); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, schemasDir, "slow.yaml", string(schema)+"\n")
	harness.Converge(t, "timers served with the new plugin", func() (bool, string) {
		r := testhttp.Do(t, client, testhttp.Request{URL: slowURL(s, "timers")})
		return r.Code == http.StatusOK, fmt.Sprint(r.Code, r.Body)
	})
	r := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: slowURL(s, "timers"), ContentType: "application/json", Body: slowObject("Timer", "t1", "")})
	if r.Code != http.StatusCreated || harness.Path(harness.DecodeJSON(t, r.Body), "spec", "defaultedBy") == nil {
		t.Fatalf("create through the new plugin: %d %s, want 201 defaulted by it", r.Code, r.Body)
	}
	if r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/readyz?verbose"}); !strings.Contains(r.Body, "[+]plugin/slow ok") {
		t.Errorf("/readyz?verbose does not list the new plugin:\n%s", r.Body)
	}
}
