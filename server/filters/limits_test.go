package filters

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/server/filters/fairness"
)

const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"

// tooManyRequests is the Status of a 429 from the chain's limits.
const tooManyRequests = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`

// held answers every request once release is closed, and says on entered
// when one has come in.
func held(release <-chan struct{}, entered chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		echo(w, r)
	})
}

// TestInFlightLimitIsAStatus: with one read and one write served at once,
// the next of each gets 429 with a Status and Retry-After, and a watch
// passes beside them.
func TestInFlightLimitIsAStatus(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 2)
	h := held(release, entered)
	url, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			streamOne(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}), Config{MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1, RequestTimeout: time.Minute})
	var wg sync.WaitGroup
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		wg.Add(1)
		go func() { defer wg.Done(); do(t, method, url+widgets, "alice-token") }()
		<-entered
	}
	defer wg.Wait()
	defer close(release)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		resp, body := send(t, method, url+widgets, "bob-token")
		if resp.StatusCode != http.StatusTooManyRequests || body != tooManyRequests || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("%s beyond the limit: %d Retry-After=%q %s\nwant 429 Retry-After=1 %s", method, resp.StatusCode, resp.Header.Get("Retry-After"), body, tooManyRequests)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s beyond the limit: Content-Type %q", method, ct)
		}
	}
	if doc, err := os.ReadFile("../../docs/operations.md"); err != nil || !strings.Contains(string(doc), "```json\n"+tooManyRequests+"\n```") {
		t.Errorf("docs/operations.md does not show the 429 Status %s (%v)", tooManyRequests, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+widgets+"?watch=true", nil)
	req.Header.Set("Authorization", "Bearer alice-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a watch beside the full limits: %v %v", resp, err)
	}
	resp.Body.Close()
}

// send is do that also returns the response's headers.
func send(t *testing.T, method, url, token string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp, string(body)
}

// runFairness starts the built-in priority and fairness with limit seats.
func runFairness(t *testing.T, limit int) *fairness.Controller {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	fc := fairness.New(limit)
	start, done := context.WithTimeout(ctx, 30*time.Second)
	defer done()
	if err := fc.Run(start); err != nil {
		t.Fatal(err)
	}
	return fc
}

// slowForAlice takes 50ms over each of alice's requests and none over
// anyone else's.
func slowForAlice(w http.ResponseWriter, r *http.Request) {
	if u, _ := request.UserFrom(r.Context()); u != nil && u.GetName() == "alice" {
		time.Sleep(50 * time.Millisecond)
	}
	echo(w, r)
}

// TestFairnessBetweenUsers: alice floods writes, many more than the
// seats of her priority level, so that she waits in her queues and some
// of her writes are refused with kube's 429 Status; bob's gets go on
// meanwhile, none refused. Without flows by user bob would wait in the
// same queues as alice.
func TestFairnessBetweenUsers(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(slowForAlice), Config{Fairness: runFairness(t, 20), RequestTimeout: 4 * time.Second})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	if resp, _ := send(t, http.MethodGet, url+widgets+"/w", "bob-token"); resp.Header.Get("X-Kubernetes-PF-PriorityLevel-UID") == "" {
		t.Errorf("no X-Kubernetes-PF-PriorityLevel-UID on an answer: %v", resp.Header)
	}
	stop := make(chan struct{})
	var flood sync.WaitGroup
	var refused atomic.Int64
	var refusal atomic.Value
	for range 100 {
		flood.Add(1)
		go func() {
			defer flood.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if code, body, retry := call(client, http.MethodPost, url+widgets, "alice-token"); code == http.StatusTooManyRequests {
					refused.Add(1)
					refusal.Store([2]string{body, retry})
				}
			}
		}()
	}
	time.Sleep(time.Second) // alice's queues fill
	for i := range 50 {
		if code, body, _ := call(client, http.MethodGet, url+widgets+"/w", "bob-token"); code != http.StatusOK {
			t.Errorf("bob's get %d during alice's flood: %d %s", i, code, body)
		}
	}
	close(stop)
	flood.Wait()
	if refused.Load() == 0 {
		t.Fatal("alice's flood was never refused: the test did not overload her priority level")
	}
	got := refusal.Load().([2]string)
	var st metav1.Status
	if err := json.Unmarshal([]byte(got[0]), &st); err != nil || st.Reason != metav1.StatusReasonTooManyRequests || st.Code != 429 || got[1] == "" {
		t.Errorf("alice's refusal: %s Retry-After=%q, want a TooManyRequests Status and Retry-After", got[0], got[1])
	}
	t.Logf("alice refused %d times; bob served 50 of 50", refused.Load())
	scraped := scrapeMetrics(t)
	for _, want := range append(docOverloadMetrics(t),
		`apiserver_flowcontrol_rejected_requests_total{flow_schema="global-default",priority_level="global-default",reason=`,
		`apiserver_flowcontrol_dispatched_requests_total{flow_schema="global-default",priority_level="global-default"}`,
	) {
		if !strings.Contains(scraped, "\n"+want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

// docOverloadMetrics are the metrics of docs/operations.md's "Overload
// metrics" table.
func docOverloadMetrics(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "\n### Overload metrics\n")
	section, _, _ = strings.Cut(section, "\n#")
	var names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(apiserver_flowcontrol_[a-z_]+)`").FindAllStringSubmatch(section, -1) {
		names = append(names, m[1])
	}
	if len(names) < 5 {
		t.Fatalf("docs/operations.md's Overload metrics table names %d metrics", len(names))
	}
	return names
}

// scrapeMetrics is what /metrics serves.
func scrapeMetrics(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// call sends one request and returns the code, the body and Retry-After.
func call(client *http.Client, method, url, token string) (int, string, string) {
	req, _ := http.NewRequestWithContext(context.Background(), method, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error(), ""
	}
	defer resp.Body.Close()
	var body json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, string(body), resp.Header.Get("Retry-After")
}
