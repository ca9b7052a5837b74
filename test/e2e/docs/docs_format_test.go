package docs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestDocsFormat checks the parsing and matching behind TestDocs without a
// server, so a mistake in the harness is not mistaken for one in a doc.
func TestDocsFormat(t *testing.T) {
	t.Run("parse", func(t *testing.T) {
		md := strings.Join([]string{
			"# Title",                        // 1
			"",                               // 2
			"```http",                        // 3
			"POST /apis/x?dryRun=All",        // 4
			"Content-Type: application/yaml", // 5
			"",                               // 6
			"kind: Widget",                   // 7
			"```",                            // 8
			"",                               // 9
			"```http-response",               // 10
			"HTTP 201",                       // 11
			"Warning: 299 - \"x\"",           // 12
			"",                               // 13
			`{"kind": "Widget"}`,             // 14
			"```",                            // 15
			"```yaml",                        // 16
			"not: run",                       // 17
			"```",                            // 18
			"```console",                     // 19
			"$ kubectl get widgets -o jsonpath='{.items[*].metadata.name}'", // 20
			"small big",                 // 21
			"$ kubectl get widget nope", // 22
			"# exit 1",                  // 23
			`Error from server (NotFound): widgets.shop.example.com "nope" not found`, // 24
			"$ kubectl apply -f - <<EOF", // 25
			"kind: Widget",               // 26
			"EOF",                        // 27
			"widget.shop.example.com/small configured", // 28
			"```", // 29
		}, "\n")
		steps, err := parseDoc(md)
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != 4 {
			t.Fatalf("%d steps, want 4: %+v", len(steps), steps)
		}
		h := steps[0].HTTP
		if steps[0].Line != 3 || h.Method != "POST" || h.Target != "/apis/x?dryRun=All" || h.Body != "kind: Widget" ||
			h.Header.Get("Content-Type") != "application/yaml" || h.Code != 201 || h.RespLine != 10 ||
			h.WantHeader.Get("Warning") != `299 - "x"` || h.WantBody != `{"kind": "Widget"}` {
			t.Errorf("http step: %+v", h)
		}
		k := steps[1].Kubectl
		if steps[1].Line != 20 || !reflect.DeepEqual(k.Args, []string{"get", "widgets", "-o", "jsonpath={.items[*].metadata.name}"}) ||
			!reflect.DeepEqual(k.WantStdout, []string{"small big"}) || k.CheckErr {
			t.Errorf("kubectl step: %+v", k)
		}
		k = steps[2].Kubectl
		if steps[2].Line != 22 || !k.CheckErr || k.WantCode != 1 || len(k.WantStdout) != 0 || len(k.WantStderr) != 1 {
			t.Errorf("failing kubectl step: %+v", k)
		}
		k = steps[3].Kubectl
		if !reflect.DeepEqual(k.Args, []string{"apply", "-f", "-"}) || k.Stdin != "kind: Widget\n" ||
			!reflect.DeepEqual(k.WantStdout, []string{"widget.shop.example.com/small configured"}) {
			t.Errorf("here-document step: %+v", k)
		}
	})

	t.Run("format errors", func(t *testing.T) {
		for name, md := range map[string]string{
			"request without response": "```http\nGET /apis\n```\n\ntext\n\n```http-response\nHTTP 200\n```\n",
			"response without request": "```http-response\nHTTP 200\n```\n",
			"bad request line":         "```http\nget /apis\n```\n```http-response\nHTTP 200\n```\n",
			"bad status line":          "```http\nGET /apis\n```\n```http-response\n200 OK\n```\n",
			"not kubectl":              "```console\n$ curl http://x\n```\n",
			"output before a command":  "```console\nhello\n$ kubectl version\n```\n",
			"unclosed block":           "```console\n$ kubectl version\n",
			"shell operator":           "```console\n$ kubectl get widgets | wc -l\n```\n",
		} {
			if _, err := parseDoc(md); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
	})

	t.Run("json subset", func(t *testing.T) {
		got := mustJSON(t, `{"a": 1, "b": {"c": "x", "d": [1, {"e": 2, "f": 3}]}, "g": null}`)
		for want, ok := range map[string]bool{
			`{}`:                              true,
			`{"a": 1.0}`:                      true,
			`{"b": {"d": [1, {"f": 3}]}}`:     true,
			`{"b": "..."}`:                    true,
			`{"g": null}`:                     true,
			`{"g": "..."}`:                    true,
			`{"a": 2}`:                        false,
			`{"a": "1"}`:                      false,
			`{"h": "..."}`:                    false,
			`{"b": {"d": [1]}}`:               false,
			`{"b": {"d": [1, {"e": 2}, 3]}}`:  false,
			`{"b": {"d": [1, {"e": "..."}]}}`: true,
		} {
			if diffs := harness.JSONSubset(mustJSON(t, want), got, ""); (len(diffs) == 0) != ok {
				t.Errorf("%s: %v, want match %v", want, diffs, ok)
			}
		}
	})

	t.Run("lines", func(t *testing.T) {
		for name, tc := range map[string]struct {
			want []string
			got  string
			ok   bool
		}{
			"spaces collapse":  {[]string{"NAME   COLOR", "small  blue"}, "NAME    COLOR\nsmall   blue\n", true},
			"any token":        {[]string{"small blue <any>"}, "small blue 3s\n", true},
			"any inside":       {[]string{"widget/small-<any> created"}, "widget/small-x7k2p created\n", true},
			"any is one token": {[]string{"small <any>"}, "small 3s ago\n", false},
			"missing line":     {[]string{"a", "b"}, "a\n", false},
			"extra line":       {[]string{"a"}, "a\nb\n", false},
			"empty":            {nil, "", true},
			"not empty":        {nil, "x\n", false},
		} {
			if err := harness.MatchLines(tc.want, tc.got); (err == nil) != tc.ok {
				t.Errorf("%s: %v, want match %v", name, err, tc.ok)
			}
		}
	})
}

// TestDocsHTTPExamples runs http examples against a stand-in server on
// loopback: headers, YAML answers, and watch streams read event by event.
func TestDocsHTTPExamples(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /things", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Warning", `299 - "unknown field \"spec.x\""`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"contentType": %q, "spec": {"a": 1, "b": [1, 2]}}`, r.Header.Get("Content-Type"))
	})
	mux.HandleFunc("GET /yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		fmt.Fprint(w, "kind: Thing\nspec:\n  a: 1\n")
	})
	mux.HandleFunc("GET /things", func(w http.ResponseWriter, r *http.Request) {
		// A watch: two events at once, then nothing until the client leaves.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type": "ADDED", "object": {"n": 1}}`+"\n")
		fmt.Fprint(w, `{"type": "MODIFIED", "object": {"n": 2}}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}

	for name, tc := range map[string]struct {
		doc string
		ok  bool
	}{
		"created":        {"```http\nPOST /things\n\n{}\n```\n```http-response\nHTTP 201\nWarning: 299 - \"unknown field \\\"spec.x\\\"\"\n\n{\"contentType\": \"application/json\", \"spec\": {\"b\": [1, \"...\"]}}\n```\n", true},
		"wrong code":     {"```http\nPOST /things\n\n{}\n```\n```http-response\nHTTP 200\n```\n", false},
		"wrong header":   {"```http\nPOST /things\n\n{}\n```\n```http-response\nHTTP 201\nWarning: nope\n```\n", false},
		"wrong body":     {"```http\nPOST /things\n\n{}\n```\n```http-response\nHTTP 201\n\n{\"spec\": {\"a\": 2}}\n```\n", false},
		"content type":   {"```http\nPOST /things\nContent-Type: application/yaml\n\na: 1\n```\n```http-response\nHTTP 201\n\n{\"contentType\": \"application/yaml\"}\n```\n", true},
		"yaml answer":    {"```http\nGET /yaml\n```\n```http-response\nHTTP 200\n\n{\"kind\": \"Thing\", \"spec\": {\"a\": 1}}\n```\n", true},
		"watch":          {"```http\nGET /things?watch=true\n```\n```http-response\nHTTP 200\n\n{\"type\": \"ADDED\", \"object\": {\"n\": 1}}\n{\"type\": \"MODIFIED\"}\n```\n", true},
		"watch mismatch": {"```http\nGET /things?watch=true\n```\n```http-response\nHTTP 200\n\n{\"type\": \"ADDED\"}\n{\"type\": \"DELETED\"}\n```\n", false},
		"two bodies":     {"```http\nGET /yaml\n```\n```http-response\nHTTP 200\n\n{}\n{}\n```\n", false},
	} {
		steps, err := parseDoc(tc.doc)
		if err != nil || len(steps) != 1 {
			t.Fatalf("%s: %v %+v", name, err, steps)
		}
		err = runHTTPExample(t.Context(), client, srv.URL, steps[0].HTTP)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want success %v", name, err, tc.ok)
		}
	}

	// A watch that sends fewer events than the doc shows fails when its
	// time is up instead of hanging (here a shorter time than the
	// harness's own bound).
	steps, err := parseDoc("```http\nGET /things?watch=true\n```\n```http-response\nHTTP 200\n\n{}\n{}\n{}\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	start := time.Now()
	if err := runHTTPExample(ctx, client, srv.URL, steps[0].HTTP); err == nil || !strings.Contains(err.Error(), "2 events") {
		t.Errorf("a watch with too few events: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a watch with too few events took %s", d)
	}
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	vals, err := harness.DecodeJSONValues(s)
	if err != nil || len(vals) != 1 {
		t.Fatalf("%q: %v", s, err)
	}
	return vals[0]
}

// TestDocsHeaderAnyValue: an expected header "..." needs the header, with
// any value.
func TestDocsHeaderAnyValue(t *testing.T) {
	ex := &httpExample{Code: 200, WantHeader: http.Header{"Audit-Id": {"..."}}}
	with := &http.Response{StatusCode: 200, Header: http.Header{"Audit-Id": {"0b9c"}}}
	if p := checkStatusAndHeaders(ex, with); len(p) != 0 {
		t.Errorf("with the header: %v", p)
	}
	if p := checkStatusAndHeaders(ex, &http.Response{StatusCode: 200, Header: http.Header{}}); len(p) != 1 {
		t.Errorf("without the header: %v, want one problem", p)
	}
}
