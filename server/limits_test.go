package server

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
)

// The regression tests of the limits a fuzz run found missing (issue 13,
// defects 2, 4 and 5), on a real engine and etcd.

const limitWidgets = "/apis/shop.example.com/v1/namespaces/default/widgets"

// startLimited serves the example schemas from an engine with opts on an
// embedded etcd at etcd's default request limit, with the body limit
// maxBody (the default when 0).
func startLimited(t *testing.T, opts engine.Options, maxBody int64) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, err := schemas.Load("../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	opts.MaxBodyBytes = maxBody
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), opts)
	srv := httptest.NewServer(New(Config{Registry: func() *schemas.Registry { return reg },
		Store: store, Logger: opts.Logger, MaxBodyBytes: maxBody}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// widgetWithNotes is a Widget whose spec.notes has n bytes.
func widgetWithNotes(name string, n int) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"color":"red","notes":%q}}`,
		name, strings.Repeat("n", n))
}

// TestJSONPatchCopiesBounded: twenty copies of spec into new fields of
// itself double it twenty times; kube-apiserver stops them at 3 MiB of
// copies with a 422, and so does specd, without the gigabytes.
func TestJSONPatchCopiesBounded(t *testing.T) {
	base := startLimited(t, engine.Options{}, 0)
	exchange{method: "POST", path: limitWidgets, contentType: "application/json", code: 201,
		body: widgetWithNotes("copies", 64)}.run(t, base)
	ops := make([]string, 20)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"copy","from":"/spec","path":"/spec/x%d"}`, i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	exchange{method: "PATCH", path: limitWidgets + "/copies", contentType: "application/json-patch+json", body: "[" + strings.Join(ops, ",") + "]",
		code: 422, reason: metav1.StatusReasonInvalid, check: func(t *testing.T, body string) {
			// kube-apiserver's answer, word for word (k8s-reference 36):
			// NewGenericServerResponse keeps no more of a 422.
			if msg := gjson.Get(body, "message").Str; msg != "the server rejected our request due to an error in our request" {
				t.Errorf("message %q", msg)
			}
		}}.run(t, base)
	runtime.ReadMemStats(&after)
	// The copies stop at 3 MiB; each is a deep copy of what was copied
	// before, so some tens of MiB are allocated, not gigabytes.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("the patch allocated %d MiB", alloc>>20)
	}
}

// TestPatchResultBounded: a patch may make no object larger than the body
// of a PUT may be.
func TestPatchResultBounded(t *testing.T) {
	const limit = 64 << 10
	base := startLimited(t, engine.Options{}, limit)
	exchange{method: "POST", path: limitWidgets, contentType: "application/json", code: 201,
		body: widgetWithNotes("grows", 40<<10)}.run(t, base)
	tooBig := func(t *testing.T, body string) {
		msg := gjson.Get(body, "message").Str
		if !strings.HasPrefix(msg, "Request entity too large: the patched object is ") || !strings.HasSuffix(msg, fmt.Sprintf("limit is %d", limit)) {
			t.Errorf("message %q", msg)
		}
	}
	patches := map[string]struct{ contentType, body string }{
		"merge": {"application/merge-patch+json", fmt.Sprintf(`{"metadata":{"annotations":{"a":%q}}}`, strings.Repeat("a", 40<<10))},
		"json":  {"application/json-patch+json", fmt.Sprintf(`[{"op":"add","path":"/metadata/annotations","value":{"a":%q}}]`, strings.Repeat("a", 40<<10))},
	}
	for name, p := range patches {
		t.Run(name, func(t *testing.T) {
			exchange{method: "PATCH", path: limitWidgets + "/grows", contentType: p.contentType, body: p.body,
				code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, check: tooBig}.run(t, base)
			got := exchange{method: "GET", path: limitWidgets + "/grows", code: 200}.run(t, base)
			if gjson.Get(got, "metadata.annotations").Exists() {
				t.Errorf("the patch was stored: %.200s", got)
			}
		})
	}
}

// TestFutureResourceVersion: a list at a revision etcd has not reached,
// by a forged continue token or an Exact resourceVersion, answers as
// kube-apiserver does: 504 Timeout with cause ResourceVersionTooLarge,
// which client-go's reflector reads.
func TestFutureResourceVersion(t *testing.T) {
	base := startLimited(t, engine.Options{}, 0)
	for _, name := range []string{"a", "b"} {
		exchange{method: "POST", path: limitWidgets, contentType: "application/json", code: 201,
			body: widgetWithNotes(name, 1)}.run(t, base)
	}
	page := exchange{method: "GET", path: limitWidgets + "?limit=1", code: 200}.run(t, base)
	current := gjson.Get(page, "metadata.resourceVersion").Int()
	future := current + 1000
	forged := forgeContinue(t, gjson.Get(page, "metadata.continue").Str, future)
	wantTooLarge := func(t *testing.T, body string) {
		want := fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", future, current)
		if msg := gjson.Get(body, "message").Str; msg != want {
			t.Errorf("message %q, want %q", msg, want)
		}
		if cause := gjson.Get(body, "details.causes.0.reason").Str; cause != string(metav1.CauseTypeResourceVersionTooLarge) {
			t.Errorf("cause %q: %s", cause, body)
		}
	}
	for name, query := range map[string]string{
		"continue":       "?limit=1&continue=" + forged,
		"exact":          fmt.Sprintf("?resourceVersion=%d&resourceVersionMatch=Exact", future),
		"not older than": fmt.Sprintf("?resourceVersion=%d&resourceVersionMatch=NotOlderThan", future),
		"no match":       fmt.Sprintf("?resourceVersion=%d", future),
	} {
		t.Run(name, func(t *testing.T) {
			exchange{method: "GET", path: limitWidgets + query, code: 504, reason: metav1.StatusReasonTimeout, check: wantTooLarge}.run(t, base)
		})
	}
}

// forgeContinue returns token with its revision set to rev.
func forgeContinue(t *testing.T, token string, rev int64) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := sjson.SetBytes(raw, "rv", rev)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(forged)
}

// TestObjectLimit: an object over what etcd takes in one request, but
// under the body limit, is refused before etcd with a 413 that names the
// limit, and nothing is stored; one just under the limit is stored.
func TestObjectLimit(t *testing.T) {
	limit := etcdstorage.MaxValueBytes(etcdstorage.DefaultMaxRequestBytes)
	base := startLimited(t, engine.Options{MaxObjectBytes: limit}, 0)
	exchange{method: "POST", path: limitWidgets, contentType: "application/json", body: widgetWithNotes("big", 2<<20),
		code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, check: func(t *testing.T, body string) {
			if msg := gjson.Get(body, "message").Str; !strings.HasSuffix(msg, fmt.Sprintf("limit is %d", limit)) {
				t.Errorf("message %q", msg)
			}
		}}.run(t, base)
	exchange{method: "GET", path: limitWidgets + "/big", code: 404}.run(t, base)
	// The server adds uid, creationTimestamp and managedFields: some
	// hundred bytes.
	exchange{method: "POST", path: limitWidgets, contentType: "application/json", body: widgetWithNotes("under", int(limit)-1024),
		code: 201}.run(t, base)
	exchange{method: "GET", path: limitWidgets + "/under", code: 200}.run(t, base)
}
