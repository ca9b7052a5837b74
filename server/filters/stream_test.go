package filters

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit/policy"
)

// events is an audit backend that keeps what it is given.
type events struct {
	mu  sync.Mutex
	got []*audit.Event
}

func (e *events) ProcessEvents(evs ...*audit.Event) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range evs {
		e.got = append(e.got, ev.DeepCopy())
	}
	return true
}

func (e *events) Run(<-chan struct{}) error { return nil }
func (e *events) Shutdown()                 {}
func (e *events) String() string            { return "test" }

func (e *events) stages(verb string) []audit.Stage {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []audit.Stage
	for _, ev := range e.got {
		if ev.Verb == verb {
			out = append(out, ev.Stage)
		}
	}
	return out
}

// fullChain is every optional filter on: audit, in-flight bounds (one
// request at a time) and a timeout.
func fullChain(backend *events) Config {
	return Config{
		AuditPolicy:                 policy.NewPolicyRuleEvaluator(&audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelMetadata}}}),
		AuditBackend:                backend,
		MaxRequestsInFlight:         1,
		MaxMutatingRequestsInFlight: 1,
		RequestTimeout:              time.Minute,
	}
}

// streamOne writes one watch event, flushes it, and holds the stream open
// until the client goes.
func streamOne(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"type":"ADDED","object":{}}` + "\n"))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestWatchStreamsThroughTheChain reads a watch's first event while the
// handler still holds the stream, with every filter on; the open watch
// takes no in-flight seat, so a get passes beside it.
func TestWatchStreamsThroughTheChain(t *testing.T) {
	backend := &events{}
	mux := http.NewServeMux()
	mux.HandleFunc("/apis/shop.example.com/v1/namespaces/default/widgets", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			streamOne(w, r)
			return
		}
		echo(w, r)
	})
	url, _ := serve(t, mux, fullChain(backend))
	path := url + "/apis/shop.example.com/v1/namespaces/default/widgets"

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, path+"?watch=true", nil)
	req.Header.Set("Authorization", "Bearer alice-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "ADDED") {
		t.Fatalf("first event: %q, %v", line, err)
	}
	if code, body := do(t, http.MethodGet, path, "alice-token"); code != http.StatusOK {
		t.Fatalf("a get beside the watch: %d %s", code, body)
	}
	if got := backend.stages("watch"); len(got) == 0 || got[0] != audit.StageRequestReceived {
		t.Fatalf("watch audit stages so far %v, want RequestReceived first", got)
	}
}

// TestTimeoutIsKubesStatus asks for a short ?timeout on a handler that
// waits for its context to end: kube's own 504 body.
func TestTimeoutIsKubesStatus(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}), fullChain(&events{}))
	code, body := do(t, http.MethodGet, url+"/apis/shop.example.com/v1/widgets?timeout=1s", "alice-token")
	// kube's timeout filter writes the Status without kind and apiVersion.
	want := `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}`
	if code != http.StatusGatewayTimeout || body != want {
		t.Fatalf("got %d %s\nwant 504 %s", code, body, want)
	}
}

// TestDefaultTimeoutIsADeadline: a request that names no timeout reaches
// the handler with --request-timeout as its context's deadline, on the
// request's own goroutine (no filter runs it on another).
func TestDefaultTimeoutIsADeadline(t *testing.T) {
	var left time.Duration
	url, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if deadline, ok := r.Context().Deadline(); ok {
			left = time.Until(deadline)
		}
		w.WriteHeader(http.StatusOK)
	}), fullChain(&events{}))
	if code, body := do(t, http.MethodGet, url+"/apis/shop.example.com/v1/widgets", "alice-token"); code != http.StatusOK {
		t.Fatalf("got %d %s", code, body)
	}
	if left <= 0 || left > time.Minute {
		t.Errorf("the handler's deadline is %s away, want within the minute of --request-timeout", left)
	}
}
