package versions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
)

// rawWatch is one watch read line by line.
type rawWatch struct {
	events chan watchLine
	done   chan struct{} // closed when the stream ends
	resp   *http.Response
}

type watchLine struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func openWatch(t *testing.T, url string) *rawWatch {
	t.Helper()
	return openWatchAccept(t, url, "")
}

// openWatchAccept is openWatch with an Accept header.
func openWatchAccept(t *testing.T, url, accept string) *rawWatch {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: HTTP %d", url, resp.StatusCode)
	}
	w := &rawWatch{events: make(chan watchLine, 100), done: make(chan struct{}), resp: resp}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l watchLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				l = watchLine{Type: "UNPARSABLE " + sc.Text()}
			}
			w.events <- l
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return w
}

// next returns the next event, failing the test after timeout.
func (w *rawWatch) next(t *testing.T, timeout time.Duration) (watchLine, bool) {
	t.Helper()
	select {
	case l := <-w.events:
		return l, true
	case <-w.done:
		select {
		case l := <-w.events:
			return l, true
		default:
			return watchLine{}, false
		}
	case <-time.After(timeout):
		t.Fatal("no watch event in time")
		return watchLine{}, false
	}
}

// objectName is metadata.name of an event's object.
func objectName(l watchLine) string {
	var o struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	_ = json.Unmarshal(l.Object, &o)
	return o.Metadata.Name
}

func mustCreate(t *testing.T, s *harness.Specd, collection, body string) string {
	t.Helper()
	r := testhttp.Do(t, http.DefaultClient, testhttp.Request{Method: http.MethodPost, URL: s.URL + collection, ContentType: "application/json", Body: body})
	if r.Code != http.StatusCreated {
		t.Fatalf("create in %s: HTTP %d\n%s", collection, r.Code, r.Body)
	}
	var o struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	_ = json.Unmarshal([]byte(r.Body), &o)
	return o.Metadata.ResourceVersion
}

var reloadErrorsMetric = regexp.MustCompile(`(?m)^specd_schema_reload_errors (\S+)$`)

func reloadErrors(t *testing.T, s *harness.Specd) float64 {
	t.Helper()
	m := reloadErrorsMetric.FindStringSubmatch(testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/metrics"}).Body)
	if m == nil {
		t.Fatal("/metrics has no specd_schema_reload_errors")
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

const (
	hammers = "/apis/tools.example.com/v1/namespaces/default/hammers"
	gadgets = "/apis/gadgets.example.com/v1/namespaces/default/gadgets"
	things  = "/apis/things.example.com/v1alpha1/namespaces/default/things"
)

// TestSchemaReload follows one schema directory through additions,
// changes, a broken file, a breaking change, its fix and removals, while
// a client lists and watches a resource that does not change.
//
// Its files: Tools, the stable resource whose file never changes, so its
// clients must not notice any reload; Gadget, the stable resource the
// tests change; Things, an alpha resource that may come and go freely.
func TestSchemaReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	harness.WriteFile(t, dir, "tools.yaml", testschemas.Tools)
	gadgetsFile := harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{}))
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})

	rv := mustCreate(t, s, hammers, testschemas.Hammer("h1"))
	mustCreate(t, s, gadgets, testschemas.Gadget("v1", "g1"))
	toolsWatch := openWatch(t, s.URL+hammers+"?watch=true&resourceVersion="+rv)
	gadgetsWatch := openWatch(t, s.URL+gadgets+"?watch=true&resourceVersion="+rv)

	// A client lists the unchanged resource all along: every list answers.
	stopLister := make(chan struct{})
	var listerWG sync.WaitGroup
	var listFailures []string
	listerWG.Go(func() {
		for {
			select {
			case <-stopLister:
				return
			case <-time.After(50 * time.Millisecond):
			}
			resp, err := http.Get(s.URL + hammers)
			if err != nil {
				listFailures = append(listFailures, err.Error())
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				listFailures = append(listFailures, resp.Status)
			}
		}
	})
	hammersSeen := []string{}
	expectHammer := func(name string) {
		t.Helper()
		mustCreate(t, s, hammers, testschemas.Hammer(name))
		l, ok := toolsWatch.next(t, 10*time.Second)
		if !ok || l.Type != "ADDED" || objectName(l) != name {
			t.Fatalf("the hammers watch: %+v (open %v), want ADDED %s", l, ok, name)
		}
		hammersSeen = append(hammersSeen, name)
	}

	t.Run("add a file in a subfolder", func(t *testing.T) {
		harness.WriteFile(t, mkdir(t, dir, "more"), "things.yaml", testschemas.Things)
		harness.Eventually(t, "things served", func() bool {
			return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things}).Code == http.StatusOK
		})
		mustCreate(t, s, things, `{"apiVersion":"things.example.com/v1alpha1","kind":"Thing","metadata":{"name":"t1"},"spec":{"label":"x"}}`)
		expectHammer("h2")
	})

	t.Run("change a file", func(t *testing.T) {
		harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{Props: []string{testschemas.SizeProp, testschemas.ColorProp}}))
		harness.Eventually(t, "the new field kept", func() bool {
			r := testhttp.Do(t, http.DefaultClient, testhttp.Request{Method: http.MethodPost, URL: s.URL + gadgets, ContentType: "application/json", Body: fmt.Sprintf(`{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"generateName":"g-"},"spec":{"size":1,"color":"red"}}`)})
			return r.Code == http.StatusCreated && strings.Contains(r.Body, `"color":"red"`)
		})
		// The changed resource's watch ends cleanly, as kube-apiserver's
		// when a CRD changes; the client watches again.
		for {
			l, ok := gadgetsWatch.next(t, 10*time.Second)
			if !ok {
				break
			}
			if l.Type == "ERROR" {
				t.Fatalf("the changed resource's watch ended with %s", l.Object)
			}
		}
		expectHammer("h3")
	})

	t.Run("a broken file leaves the served schemas", func(t *testing.T) {
		harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{Props: []string{testschemas.SizeProp, "color: {type: string"}}))
		harness.Eventually(t, "/readyz?verbose names the file", func() bool {
			r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"})
			return r.Code == http.StatusOK && strings.Contains(r.Body, "[!]schemas") && strings.Contains(r.Body, gadgetsFile)
		})
		if n := reloadErrors(t, s); n < 1 {
			t.Errorf("specd_schema_reload_errors %v, want >= 1", n)
		}
		if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + gadgets + "/g1"}); r.Code != http.StatusOK {
			t.Errorf("GET g1 after a broken reload: HTTP %d", r.Code)
		}
		expectHammer("h4")
	})

	t.Run("a breaking change is refused", func(t *testing.T) {
		// size goes: clients of the stable v1 would lose it.
		harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{Props: []string{testschemas.ColorProp}}))
		harness.Eventually(t, "/readyz?verbose shows the refusal", func() bool {
			r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"})
			return strings.Contains(r.Body, "schema change refused") && strings.Contains(r.Body, "field-removed")
		})
		r := testhttp.Do(t, http.DefaultClient, testhttp.Request{Method: http.MethodPost, URL: s.URL + gadgets, ContentType: "application/json", Body: `{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"g2"},"spec":{"size":7}}`})
		if r.Code != http.StatusCreated || !strings.Contains(r.Body, `"size":7`) {
			t.Errorf("the served schema changed: HTTP %d %s", r.Code, r.Body)
		}
	})

	t.Run("the annotation lets it through", func(t *testing.T) {
		harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{XSpecd: ", allowBreaking: true", Props: []string{testschemas.ColorProp}}))
		harness.Eventually(t, "the change applied", func() bool {
			return !strings.Contains(testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"}).Body, "[!]schemas")
		})
		if n := reloadErrors(t, s); n != 0 {
			t.Errorf("specd_schema_reload_errors %v after the fix, want 0", n)
		}
	})

	t.Run("remove a file", func(t *testing.T) {
		rv := mustCreate(t, s, things, `{"apiVersion":"things.example.com/v1alpha1","kind":"Thing","metadata":{"name":"t2"}}`)
		thingsWatch := openWatch(t, s.URL+things+"?watch=true&resourceVersion="+rv)
		if err := os.Remove(filepath.Join(dir, "more", "things.yaml")); err != nil {
			t.Fatal(err)
		}
		l, ok := thingsWatch.next(t, 10*time.Second)
		if !ok || l.Type != "ERROR" {
			t.Fatalf("the removed resource's watch: %+v (open %v), want an ERROR event", l, ok)
		}
		var st struct {
			Kind    string
			Code    int
			Reason  string
			Message string
		}
		if err := json.Unmarshal(l.Object, &st); err != nil || st.Kind != "Status" || st.Code != 410 || st.Reason != "Gone" ||
			!strings.Contains(st.Message, "things.things.example.com is no longer served") {
			t.Errorf("ERROR event %s, want a 410 Gone Status naming the resource", l.Object)
		}
		if _, ok := thingsWatch.next(t, 5*time.Second); ok {
			t.Error("the watch went on after its ERROR event")
		}
		if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things}); r.Code != http.StatusNotFound {
			t.Errorf("list of a removed resource: HTTP %d, want 404", r.Code)
		}
		expectHammer("h5")
	})

	t.Run("objects come back with their file", func(t *testing.T) {
		harness.WriteFile(t, filepath.Join(dir, "more"), "things.yaml", testschemas.Things)
		harness.Eventually(t, "t1 served again", func() bool {
			return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things + "/t1"}).Code == http.StatusOK
		})
		if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things + "/t2"}); r.Code != http.StatusOK {
			t.Errorf("t2: HTTP %d", r.Code)
		}
		// A watch of the returned resource sees its changes.
		w := openWatch(t, s.URL+things+"?watch=true&resourceVersion=0")
		seen := map[string]bool{}
		for len(seen) < 2 {
			l, ok := w.next(t, 10*time.Second)
			if !ok || l.Type != "ADDED" {
				t.Fatalf("watch of the returned resource: %+v", l)
			}
			seen[objectName(l)] = true
		}
	})

	close(stopLister)
	listerWG.Wait()
	if len(listFailures) > 0 {
		t.Errorf("lists of the unchanged resource failed during reloads: %v", listFailures)
	}
	// Nothing lost: the hammers watch saw every create, and so does a list.
	list := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + hammers}).Body
	for _, name := range append([]string{"h1"}, hammersSeen...) {
		if !strings.Contains(list, `"name":"`+name+`"`) {
			t.Errorf("hammer %s is not listed", name)
		}
	}
	select {
	case <-toolsWatch.done:
		t.Error("the unchanged resource's watch ended")
	default:
	}
}

// gadgetsIn is gadgets in one of two versions, v1 (stored) and v1beta1;
// xSpecd is spliced into the file's x-specd.
func gadgetsIn(version, xSpecd string) string {
	return testschemas.Gadgets(testschemas.GadgetOptions{Version: version, XSpecd: xSpecd,
		Resource: fmt.Sprintf("{storage: %t}", version == "v1")})
}

// objectRV is metadata.resourceVersion of an event's object.
func objectRV(l watchLine) string {
	var o struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	_ = json.Unmarshal(l.Object, &o)
	return o.Metadata.ResourceVersion
}

// docsVersionGoneEvent is the ERROR event docs/serving.md shows for a
// watch of a removed version.
func docsVersionGoneEvent(t *testing.T) watchLine {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "serving.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(md)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, `{"type":"ERROR"`) && strings.Contains(line, "v1beta1 gadgets is no longer served") {
			var l watchLine
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("docs/serving.md: %v\n%s", err, line)
			}
			return l
		}
	}
	t.Fatal("docs/serving.md shows no ERROR event of a removed version")
	return watchLine{}
}

// TestSchemaReloadRemovedVersion removes one version of a resource whose
// other version stays: the watches of the removed version, also as=Table,
// end with the ERROR event docs/serving.md shows; a watch of the version
// that stays ends cleanly and, watched again from its last
// resourceVersion, gets every write made since; another resource's watch
// goes on.
func TestSchemaReloadRemovedVersion(t *testing.T) {
	t.Parallel()
	const betaGadgets = "/apis/gadgets.example.com/v1beta1/namespaces/default/gadgets"
	dir := t.TempDir()
	harness.WriteFile(t, dir, "tools.yaml", testschemas.Tools)
	harness.WriteFile(t, dir, "gadgets-v1.yaml", gadgetsIn("v1", ""))
	// Removing a beta version is a breaking change: the file lets it.
	betaFile := harness.WriteFile(t, dir, "gadgets-v1beta1.yaml", gadgetsIn("v1beta1", ", allowBreaking: true"))
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})

	rv := mustCreate(t, s, gadgets, testschemas.Gadget("v1", "g1"))
	hammersRV := mustCreate(t, s, hammers, testschemas.Hammer("h1"))
	betaWatch := openWatch(t, s.URL+betaGadgets+"?watch=true&resourceVersion="+rv)
	betaTable := openWatchAccept(t, s.URL+betaGadgets+"?watch=true&resourceVersion="+rv, "application/json;as=Table;v=v1;g=meta.k8s.io")
	stableWatch := openWatch(t, s.URL+gadgets+"?watch=true&resourceVersion="+rv)
	toolsWatch := openWatch(t, s.URL+hammers+"?watch=true&resourceVersion="+hammersRV)

	if err := os.Remove(betaFile); err != nil {
		t.Fatal(err)
	}
	want := docsVersionGoneEvent(t)
	var wantStatus map[string]any
	if err := json.Unmarshal(want.Object, &wantStatus); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*rawWatch{"the v1beta1 watch": betaWatch, "the v1beta1 Table watch": betaTable} {
		l, ok := w.next(t, 10*time.Second)
		var got map[string]any
		_ = json.Unmarshal(l.Object, &got)
		if !ok || l.Type != "ERROR" || !reflect.DeepEqual(got, wantStatus) {
			t.Errorf("%s: %s %s (open %v), want the ERROR event of docs/serving.md:\n%s", name, l.Type, l.Object, ok, want.Object)
		}
		if l, ok := w.next(t, 5*time.Second); ok {
			t.Errorf("%s went on after its ERROR event: %s %s", name, l.Type, l.Object)
		}
	}

	// The v1 watch ends cleanly.
	last := rv
	for {
		l, ok := stableWatch.next(t, 10*time.Second)
		if !ok {
			break
		}
		if l.Type == "ERROR" {
			t.Fatalf("the v1 watch ended with %s", l.Object)
		}
		last = objectRV(l)
	}
	if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + betaGadgets}); r.Code != http.StatusNotFound {
		t.Errorf("list of the removed version: HTTP %d, want 404", r.Code)
	}
	// Writes after the reload, before the client watches again: it gets
	// them all, in order, from its last resourceVersion.
	mustCreate(t, s, gadgets, testschemas.Gadget("v1", "g2"))
	mustCreate(t, s, gadgets, testschemas.Gadget("v1", "g3"))
	again := openWatch(t, s.URL+gadgets+"?watch=true&resourceVersion="+last)
	for _, name := range []string{"g2", "g3"} {
		if l, ok := again.next(t, 10*time.Second); !ok || l.Type != "ADDED" || objectName(l) != name {
			t.Fatalf("the v1 watch again from %s: %s %s (open %v), want ADDED %s", last, l.Type, l.Object, ok, name)
		}
	}

	mustCreate(t, s, hammers, testschemas.Hammer("h2"))
	if l, ok := toolsWatch.next(t, 10*time.Second); !ok || l.Type != "ADDED" || objectName(l) != "h2" {
		t.Errorf("the hammers watch: %s %s (open %v), want ADDED h2", l.Type, l.Object, ok)
	}
}

// TestSchemaReloadSIGHUP: with --watch=false a new file is served only
// after SIGHUP.
func TestSchemaReloadSIGHUP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	harness.WriteFile(t, dir, "tools.yaml", testschemas.Tools)
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, Args: []string{"--watch=false"}})
	harness.WriteFile(t, dir, "things.yaml", testschemas.Things)
	time.Sleep(2 * time.Second) // well past the watcher's debounce
	if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things}); r.Code != http.StatusNotFound {
		t.Fatalf("with --watch=false a new file is served without SIGHUP: HTTP %d", r.Code)
	}
	if err := s.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "things served after SIGHUP", func() bool {
		return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + things}).Code == http.StatusOK
	})
}

func mkdir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServingDocReloadExample drops the schema file of docs/serving.md's
// "Changing schemas while serving" into a running specd, as the page
// says, and checks what the page says happens.
func TestServingDocReloadExample(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "serving.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(md), "## Changing schemas while serving")
	if !ok {
		t.Fatal("docs/serving.md has no section \"Changing schemas while serving\"")
	}
	_, rest, _ := strings.Cut(section, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("the section has no yaml example")
	}
	dir := t.TempDir()
	harness.WriteFile(t, dir, "tools.yaml", testschemas.Tools)
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	k := harness.NewKubectl(t, s)
	harness.WriteFile(t, dir, "gadgets.yaml", example)
	harness.Eventually(t, "gadgets served", func() bool {
		return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/apis/gadgets.example.com/v1beta1/namespaces/default/gadgets"}).Code == http.StatusOK
	})
	k.OK(t, "get", "gadgets")
	k.OK(t, "get", "gd")
	waitForLog(t, s, `msg="schemas reloaded"`) // logged once its followers are done
	if log := s.Stderr.String(); !strings.Contains(log, `msg="schemas reloaded" trigger=change`) ||
		!strings.Contains(log, "added=[gadgets.gadgets.example.com]") {
		t.Errorf("specd did not log the reload as the page shows:\n%s", log)
	}
}
