package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// TestStorageFailuresAreLoggedAndCounted drives the real handler and a
// real engine.Store over a storage that times out: the client gets the
// 500 InternalError it always got, the log one error line naming the
// verb, the resource and the cause, and /metrics one more error.
func TestStorageFailuresAreLoggedAndCounted(t *testing.T) {
	cause := errors.New("etcdserver: request timed out")
	widget := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":1}}`
	tests := map[string]struct {
		req         request
		verb        string
		subresource string
	}{
		"get":              {req: request{path: widgetsPath + "/w1"}, verb: "get"},
		"list":             {req: request{path: widgetsPath}, verb: "list"},
		"create":           {req: request{method: http.MethodPost, path: widgetsPath, body: widget}, verb: "create"},
		"update":           {req: request{method: http.MethodPut, path: widgetsPath + "/w1", body: widget}, verb: "update"},
		"patch":            {req: request{method: http.MethodPatch, path: widgetsPath + "/w1", body: `{}`, headers: map[string]string{"Content-Type": "application/merge-patch+json"}}, verb: "patch"},
		"delete":           {req: request{method: http.MethodDelete, path: widgetsPath + "/w1"}, verb: "delete"},
		"deletecollection": {req: request{method: http.MethodDelete, path: widgetsPath}, verb: "deletecollection"},
		"get status":       {req: request{path: widgetsPath + "/w1/status"}, verb: "get", subresource: "status"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			s := failureServer(&log, engine.NewStore(failingStorage{cause}, engine.Options{Logger: slog.New(slog.DiscardHandler)}))
			series := errorSeries("500", tc.verb, "widgets.shop.example.com", tc.subresource)
			before := scrapeCounter(t, s, series)
			w := serve(t, s, tc.req)
			st := decodeStatus(t, w)
			if w.Code != 500 || st.Reason != metav1.StatusReasonInternalError || st.Message != "Internal error occurred: "+cause.Error() {
				t.Errorf("answer %d %s %q", w.Code, st.Reason, st.Message)
			}
			checkOneErrorRecord(t, &log, tc.verb, "widgets.shop.example.com", tc.subresource, cause.Error())
			if got := scrapeCounter(t, s, series) - before; got != 1 {
				t.Errorf("%s grew by %v, want 1", series, got)
			}
		})
	}
}

// TestServerErrorsAreLoggedOnce checks the answers that are already a
// Status: one with a 5xx code is logged and counted once, like a plain
// error; one below 500 is neither.
func TestServerErrorsAreLoggedOnce(t *testing.T) {
	tests := map[string]struct {
		err     error
		code    int
		records int
		watch   bool
	}{
		"a plugin that failed (failurePolicy Fail)": {
			err: apierrors.NewInternalError(errors.New(`failed calling plugin "ship-policy" (validate): unavailable`)), code: 500, records: 1},
		"unavailable":               {err: apierrors.NewServiceUnavailable("etcd is gone"), code: 503, records: 1},
		"a timeout":                 {err: apierrors.NewTimeoutError("too slow", 0), code: 504, records: 1},
		"a watch that cannot start": {err: apierrors.NewServiceUnavailable("etcd is gone"), code: 503, records: 1, watch: true},
		"not found":                 {err: apierrors.NewNotFound(schema.GroupResource{Group: "shop.example.com", Resource: "widgets"}, "w1"), code: 404},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			store := newFakeStore()
			store.err = tc.err
			var s *Server
			verb, path := "get", widgetsPath+"/w1"
			if tc.watch {
				s = failureServer(&log, failingWatchStore{store})
				verb, path = "watch", widgetsPath+"?watch=true"
			} else {
				s = failureServer(&log, store)
			}
			series := errorSeries(strconv.Itoa(tc.code), verb, "widgets.shop.example.com", "")
			before := scrapeCounter(t, s, series)
			if w := serve(t, s, request{path: path}); w.Code != tc.code {
				t.Fatalf("code %d, want %d", w.Code, tc.code)
			}
			if tc.records == 0 {
				if log.Len() != 0 {
					t.Errorf("log: %s", log.String())
				}
			} else {
				checkOneErrorRecord(t, &log, verb, "widgets.shop.example.com", "", tc.err.Error())
			}
			if got := scrapeCounter(t, s, series) - before; got != float64(tc.records) {
				t.Errorf("%s grew by %v, want %d", series, got, tc.records)
			}
		})
	}
}

// failingWatchStore answers every watch with the store's error.
type failingWatchStore struct{ *fakeStore }

func (f failingWatchStore) Watch(context.Context, engine.Ref, engine.WatchRequest) (*engine.Watch, error) {
	return nil, f.err
}

func TestPanicsAreLoggedAndCounted(t *testing.T) {
	var log bytes.Buffer
	s := failureServer(&log, panicStore{newFakeStore()})
	series := errorSeries("500", "get", "widgets.shop.example.com", "")
	before := scrapeCounter(t, s, series)
	if w := serve(t, s, request{path: widgetsPath + "/w1"}); w.Code != 500 {
		t.Fatalf("code %d", w.Code)
	}
	checkOneErrorRecord(t, &log, "get", "widgets.shop.example.com", "", "panic: boom")
	if got := scrapeCounter(t, s, series) - before; got != 1 {
		t.Errorf("%s grew by %v, want 1", series, got)
	}
}

func failureServer(log *bytes.Buffer, store engine.Objects) *Server {
	reg := testRegistry()
	return New(Config{Registry: func() *schemas.Registry { return reg }, Store: store,
		Logger: slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
}

// checkOneErrorRecord checks that log holds one record, at error level,
// naming the verb, resource, subresource and cause.
func checkOneErrorRecord(t *testing.T, log *bytes.Buffer, verb, resource, subresource, cause string) {
	t.Helper()
	var records []map[string]any
	sc := bufio.NewScanner(log)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		records = append(records, rec)
	}
	if len(records) != 1 {
		t.Fatalf("%d log records, want 1: %v", len(records), records)
	}
	rec := records[0]
	if rec["level"] != "ERROR" || rec["verb"] != verb || rec["resource"] != resource || rec["subresource"] != subresource {
		t.Errorf("record %v, want level ERROR, verb %s, resource %s, subresource %q", rec, verb, resource, subresource)
	}
	if errText, _ := rec["err"].(string); !strings.Contains(errText, cause) {
		t.Errorf("err %q lacks the cause %q", errText, cause)
	}
}

// errorSeries is the series of specd_http_server_errors_total as /metrics
// writes it: labels in name order.
func errorSeries(code, verb, resource, subresource string) string {
	return `specd_http_server_errors_total{code="` + code + `",resource="` + resource +
		`",subresource="` + subresource + `",verb="` + verb + `"}`
}

// scrapeCounter reads series from s's /metrics; 0 when absent.
func scrapeCounter(t *testing.T, s *Server, series string) float64 {
	t.Helper()
	w := serve(t, s, request{path: "/metrics"})
	for _, line := range strings.Split(w.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// TestRequestInfoOfDiscoveryPaths: naming the request of a failure on a
// path above the resources (a discovery handler's panic) must not panic
// itself, or the 500 is lost with its log line and count.
func TestRequestInfoOfDiscoveryPaths(t *testing.T) {
	for _, path := range []string{"/apis/", "/apis/shop.example.com", "/apis/shop.example.com/v1", "/apis/shop.example.com/v1/"} {
		info := newRequestInfo(testRegistry(), httptest.NewRequest(http.MethodGet, path, nil))
		if info.verb != "get" || info.resource != "" {
			t.Errorf("%s: %+v, want verb get and no resource", path, info)
		}
	}
}
