package engine

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/schemas"
)

var (
	nsResource      = &schemas.Resource{Group: "g.example.com", Kind: "Widget", Plural: "widgets", Scope: schemas.Namespaced, StorageVersion: "v1"}
	clusterResource = &schemas.Resource{Group: "g.example.com", Kind: "Thing", Plural: "things", Scope: schemas.Cluster, StorageVersion: "v1"}
)

func TestKeys(t *testing.T) {
	var keys Keys
	tests := map[string]struct {
		got, want string
	}{
		"namespaced object":    {keys.Object(nsResource, "a", "w"), "/specd/g.example.com/widgets/a/w"},
		"cluster object":       {keys.Object(clusterResource, "", "t"), "/specd/g.example.com/things/t"},
		"namespace list":       {keys.Namespace(nsResource, "a"), "/specd/g.example.com/widgets/a/"},
		"all namespaces list":  {keys.Namespace(nsResource, ""), "/specd/g.example.com/widgets/"},
		"cluster list":         {keys.Namespace(clusterResource, ""), "/specd/g.example.com/things/"},
		"cluster ignores a ns": {keys.Namespace(clusterResource, "x"), "/specd/g.example.com/things/"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("%q, want %q", tc.got, tc.want)
			}
		})
	}
	if strings.HasPrefix(keys.Object(nsResource, "ab", "w"), keys.Namespace(nsResource, "a")) {
		t.Fatal("namespace a's prefix covers namespace ab")
	}
}

func TestContinueToken(t *testing.T) {
	const prefix = "/specd/g/widgets/"
	tok, err := encodeContinue(prefix, prefix+"default/w1", 113)
	if err != nil {
		t.Fatal(err)
	}
	// The same shape as kube-apiserver's token (reference 29).
	if want := "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTEzLCJzdGFydCI6Ii9kZWZhdWx0L3cxXHUwMDAwIn0"; tok != want {
		t.Fatalf("token %s, want %s", tok, want)
	}
	key, rev, err := decodeContinue(tok, prefix)
	if err != nil || key != prefix+"default/w1\x00" || rev != 113 {
		t.Fatalf("decode = %q, %d, %v", key, rev, err)
	}
	if _, err := encodeContinue(prefix, "/other/x", 1); err == nil {
		t.Fatal("encoded a key outside the prefix")
	}
	tests := map[string]string{
		"bad base64":    "%%%",
		"bad json":      "bm9wZQ",
		"empty":         "e30", // {}
		"traversal":     b64(`{"v":"meta.k8s.io/v1","rv":1,"start":"/a/../../b"}`),
		"zero revision": b64(`{"v":"meta.k8s.io/v1","rv":0,"start":"/a"}`),
	}
	for name, token := range tests {
		t.Run(name, func(t *testing.T) {
			if _, _, err := decodeContinue(token, prefix); err == nil {
				t.Fatal("decoded")
			}
		})
	}
	if key, rev, err := decodeContinue(b64(`{"v":"meta.k8s.io/v1","rv":-1,"start":"a"}`), prefix); err != nil || rev != -1 || key != prefix+"a" {
		t.Fatalf("latest-revision token = %q, %d, %v", key, rev, err)
	}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestSpecChanged(t *testing.T) {
	tests := map[string]struct {
		old, new string
		status   bool
		want     bool
	}{
		"same":                       {`{"spec":{"a":1}}`, `{"spec":{"a":1}}`, true, false},
		"metadata only":              {`{"metadata":{"labels":{"a":"b"}},"spec":{"a":1}}`, `{"metadata":{},"spec":{"a":1}}`, true, false},
		"spec value":                 {`{"spec":{"a":1}}`, `{"spec":{"a":2}}`, true, true},
		"int vs float":               {`{"spec":{"a":1}}`, `{"spec":{"a":1.5}}`, true, true},
		"field added":                {`{"spec":{"a":1}}`, `{"spec":{"a":1},"data":1}`, true, true},
		"field removed":              {`{"spec":{"a":1},"data":1}`, `{"spec":{"a":1}}`, true, true},
		"status with subresource":    {`{"status":{"x":1}}`, `{"status":{"x":2}}`, true, false},
		"status without subresource": {`{"status":{"x":1}}`, `{"status":{"x":2}}`, false, true},
		"apiVersion ignored":         {`{"apiVersion":"g/v1"}`, `{"apiVersion":"g/v2"}`, false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := specChanged(decodeMap(t, tc.old), decodeMap(t, tc.new), tc.status); got != tc.want {
				t.Fatalf("specChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

func decodeMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPrepareCreateMeta(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	tests := map[string]struct {
		r        *schemas.Resource
		ns       string
		meta     string
		wantMeta string // JSON of the resulting metadata, with the name checked separately when generated
		errs     string // joined error fields
		badReq   bool
	}{
		"namespace from the URL": {
			r: nsResource, ns: "a", meta: `{"name":"w"}`,
			wantMeta: `{"creationTimestamp":"2026-01-02T03:04:05Z","generation":1,"name":"w","namespace":"a","uid":"u"}`,
		},
		"matching namespace": {
			r: nsResource, ns: "a", meta: `{"name":"w","namespace":"a"}`,
			wantMeta: `{"creationTimestamp":"2026-01-02T03:04:05Z","generation":1,"name":"w","namespace":"a","uid":"u"}`,
		},
		"other namespace": {r: nsResource, ns: "a", meta: `{"name":"w","namespace":"b"}`, badReq: true},
		"cluster scope drops the namespace": {
			r: clusterResource, meta: `{"name":"t","namespace":"b"}`,
			wantMeta: `{"creationTimestamp":"2026-01-02T03:04:05Z","generation":1,"name":"t","uid":"u"}`,
		},
		"server fields replaced": {
			r: nsResource, ns: "a",
			meta:     `{"name":"w","uid":"x","resourceVersion":"5","generation":4,"creationTimestamp":"2000-01-01T00:00:00Z","deletionTimestamp":"2000-01-01T00:00:00Z","selfLink":"/x"}`,
			wantMeta: `{"creationTimestamp":"2026-01-02T03:04:05Z","generation":1,"name":"w","namespace":"a","uid":"u"}`,
		},
		"labels kept": {
			r: nsResource, ns: "a", meta: `{"name":"w","labels":{"k":"v"},"finalizers":["a.b/c"]}`,
			wantMeta: `{"creationTimestamp":"2026-01-02T03:04:05Z","finalizers":["a.b/c"],"generation":1,"labels":{"k":"v"},"name":"w","namespace":"a","uid":"u"}`,
		},
		"no name":         {r: nsResource, ns: "a", meta: `{}`, errs: "metadata.name"},
		"bad name":        {r: nsResource, ns: "a", meta: `{"name":"A_b"}`, errs: "metadata.name"},
		"bad label value": {r: nsResource, ns: "a", meta: `{"name":"w","labels":{"k":"-"}}`, errs: "metadata.labels"},
		"missing namespace": {
			r: nsResource, ns: "", meta: `{"name":"w"}`, errs: "metadata.namespace",
		},
		"bad generateName": {r: nsResource, ns: "a", meta: `{"generateName":"A_"}`, errs: "metadata.generateName,metadata.name"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req := &request{obj: map[string]any{}}
			req.metaMap = decodeMap(t, tc.meta)
			req.obj["metadata"] = req.metaMap
			if err := json.Unmarshal([]byte(tc.meta), &req.meta); err != nil {
				t.Fatal(err)
			}
			errs, err := req.prepareCreateMeta(tc.r, tc.ns, now, "u", generateName)
			if tc.badReq {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			if got := strings.Join(fields, ","); got != tc.errs {
				t.Fatalf("error fields %q, want %q (%v)", got, tc.errs, errs)
			}
			if tc.wantMeta != "" {
				got, _ := json.Marshal(req.metaMap)
				if string(got) != tc.wantMeta {
					t.Fatalf("metadata\n got: %s\nwant: %s", got, tc.wantMeta)
				}
			}
		})
	}
}

func TestGenerateName(t *testing.T) {
	if n := generateName("gen-"); len(n) != 9 || !strings.HasPrefix(n, "gen-") {
		t.Fatalf("generateName = %q", n)
	}
	if n := generateName(strings.Repeat("x", 100)); len(n) != 63 {
		t.Fatalf("generated name length %d, want 63", len(n))
	}
}

func TestPrepareUpdateMetaValidates(t *testing.T) {
	old := &stored{obj: decodeMap(t, `{"metadata":{"name":"w","uid":"u","creationTimestamp":"2026-01-02T03:04:05Z","generation":3},"spec":{"a":1}}`)}
	old.meta = metav1.ObjectMeta{Name: "w", Namespace: "ns", UID: "u", Generation: 3, ResourceVersion: "9"}
	req := &request{obj: decodeMap(t, `{"metadata":{"name":"w","resourceVersion":"9","labels":{"k":"-"},"generation":1},"spec":{"a":2}}`)}
	req.metaMap = req.obj["metadata"].(map[string]any)
	req.meta = metav1.ObjectMeta{Name: "w", Namespace: "ns", ResourceVersion: "9", Labels: map[string]string{"k": "-"}, Generation: 1}
	errs := req.prepareUpdateMeta(&schemas.ResourceVersion{Resource: nsResource}, old)
	if len(errs) != 1 || errs[0].Field != "metadata.labels" {
		t.Fatalf("errs = %v, want one on metadata.labels", errs)
	}
	got, _ := json.Marshal(req.metaMap)
	want := `{"creationTimestamp":"2026-01-02T03:04:05Z","generation":4,"labels":{"k":"-"},"name":"w","uid":"u"}`
	if string(got) != want {
		t.Fatalf("metadata\n got: %s\nwant: %s", got, want)
	}
}

func TestAppendWithResourceVersion(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"metadata first": {`{"metadata":{"name":"a"},"x":1}`, `{"metadata":{"resourceVersion":"7","name":"a"},"x":1}`},
		"metadata later": {`{"apiVersion":"v","metadata":{"name":"a"}}`, `{"apiVersion":"v","metadata":{"resourceVersion":"7","name":"a"}}`},
		"empty metadata": {`{"metadata":{}}`, `{"metadata":{"resourceVersion":"7"}}`},
		"spaced empty":   {`{"metadata":{ }}`, `{"metadata":{"resourceVersion":"7" }}`},
		"no metadata":    {`{"x":1}`, `{"x":1,"metadata":{"resourceVersion":"7"}}`},
		"nested decoy":   {`{"spec":{"metadata":{}},"metadata":{"a":1}}`, `{"spec":{"metadata":{}},"metadata":{"resourceVersion":"7","a":1}}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := appendWithResourceVersion([]byte("pre"), []byte(tc.in), 7)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "pre"+tc.want {
				t.Fatalf("got %s, want pre%s", got, tc.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"empty":      {"", "<empty>"},
		"short json": {`{"a":1}`, `{"a":1}`},
		"long json":  {`{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":1}`, `{"` + strings.Repeat("a", 28) + ` ...`},
		"not json":   {"ab", "6162"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := summarize([]byte(tc.in), 30); got != tc.want {
				t.Fatalf("%q, want %q", got, tc.want)
			}
		})
	}
}
