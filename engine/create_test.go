package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// TestCreateMatchesKube replays the recorded successful creates and
// compares the answers, apart from uid, resourceVersion and managedFields.
func TestCreateMatchesKube(t *testing.T) {
	tests := map[string]struct {
		ref      string
		cluster  bool
		warnings []string
	}{
		"create":                {ref: "07"},
		"unknown field warned":  {ref: "17", warnings: []string{`unknown field "spec.bogus"`}},
		"cluster-scoped create": {ref: "47", cluster: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			rv, ns := widgets(t), "default"
			if tc.cluster {
				rv, ns = warehouses(t), ""
			}
			ex := loadExchange(t, tc.ref)
			res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: ns}, Body: ex.requestBody(), Options: engine.WriteOptions{}})
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, withoutServerFields(t, res.Object), withoutServerFields(t, ex.Response.Body))
			if strings.Join(res.Warnings, "|") != strings.Join(tc.warnings, "|") {
				t.Fatalf("warnings %q, want %q", res.Warnings, tc.warnings)
			}
			if _, err := uuid.Parse(gjson.GetBytes(res.Object, "metadata.uid").String()); err != nil {
				t.Fatalf("uid: %v", err)
			}
			if !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(rvOf(res.Object)) {
				t.Fatalf("resourceVersion %q", rvOf(res.Object))
			}
			got, err := s.Get(context.Background(), engine.Ref{Version: rv, Namespace: ns, Name: gjson.GetBytes(res.Object, "metadata.name").String()})
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, got, res.Object)
		})
	}
}

// TestCreateErrorsMatchKube replays the recorded failing creates and
// compares the Status answered, byte for byte as JSON.
func TestCreateErrorsMatchKube(t *testing.T) {
	tests := map[string]struct {
		ref   string
		opts  engine.WriteOptions
		setup bool // create the reference 07 object first
	}{
		"already exists":       {ref: "08", setup: true},
		"invalid":              {ref: "09"},
		"missing required":     {ref: "10"},
		"kind mismatch":        {ref: "11"},
		"apiVersion mismatch":  {ref: "12"},
		"malformed JSON":       {ref: "13"},
		"invalid name":         {ref: "14"},
		"namespace mismatch":   {ref: "15"},
		"strict unknown field": {ref: "16", opts: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, st := newStore(t)
			ctx := context.Background()
			rv := widgets(t)
			if tc.setup {
				mustCreate(t, s, rv, "default", string(loadExchange(t, "07").requestBody()))
			}
			before, err := st.List(ctx, "/", storage.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ex := loadExchange(t, tc.ref)
			_, err = s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: ex.requestBody(), Options: tc.opts})
			sameJSON(t, statusOf(t, err), ex.Response.Body)
			if code := apierrors.ReasonForError(err); code == "" {
				t.Fatalf("no reason in %v", err)
			}
			after, err := st.List(ctx, "/", storage.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Items) != len(before.Items) {
				t.Fatalf("a failed create stored something: %d keys, then %d", len(before.Items), len(after.Items))
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	const ok = `"apiVersion":"shop.example.com/v1","kind":"Widget"`
	tests := map[string]struct {
		body    string
		ns      string
		opts    engine.WriteOptions
		code    int32
		message string
	}{
		"duplicate field strict": {
			body: `{` + ok + `,"metadata":{"name":"d"},"spec":{"size":1,"size":2}}`,
			opts: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict},
			code: 400, message: `Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.size"`,
		},
		"unknown metadata field strict": {
			body: `{` + ok + `,"metadata":{"name":"d","bogus":1},"spec":{"size":1,"bogus":2}}`,
			opts: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict},
			code: 400, message: `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "metadata.bogus", unknown field "spec.bogus"`,
		},
		"missing kind": {
			body: `{"apiVersion":"shop.example.com/v1","metadata":{"name":"d"}}`,
			code: 400, message: `the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '{"apiVersion":"shop.example.com/v1","metadata":{"name":"d"}}' ({"apiVersion":"shop.example.co ...)`,
		},
		"not an object": {
			body: `[1]`,
			code: 400,
		},
		"empty body": {
			body: ``,
			code: 400, message: `the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`,
		},
		"no name": {
			body: `{` + ok + `,"spec":{"size":1}}`,
			code: 422, message: `Widget.shop.example.com "" is invalid: metadata.name: Required value: name or generateName is required`,
		},
		"bad label": {
			body: `{` + ok + `,"metadata":{"name":"l","labels":{"a":"-x-"}},"spec":{"size":0}}`,
			code: 422,
		},
		"metadata of the wrong type": {
			body: `{` + ok + `,"metadata":{"name":"l","labels":3},"spec":{"size":1}}`,
			code: 400,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			ns := tc.ns
			if ns == "" {
				ns = "default"
			}
			_, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: ns}, Body: []byte(tc.body), Options: tc.opts})
			var se *apierrors.StatusError
			if !errorsAs(err, &se) {
				t.Fatalf("error %v is not a StatusError", err)
			}
			if se.ErrStatus.Code != tc.code {
				t.Fatalf("code %d (%s), want %d", se.ErrStatus.Code, se.ErrStatus.Message, tc.code)
			}
			if tc.message != "" && se.ErrStatus.Message != tc.message {
				t.Fatalf("message\n got: %s\nwant: %s", se.ErrStatus.Message, tc.message)
			}
		})
	}
}

func TestCreateInvalidCollectsMetadataAndSchemaErrors(t *testing.T) {
	s, _ := newStore(t)
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"l","labels":{"a":"-x-"}},"spec":{"size":0}}`
	_, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}})
	var se *apierrors.StatusError
	if !errorsAs(err, &se) || se.ErrStatus.Code != 422 {
		t.Fatalf("error %v, want 422", err)
	}
	var fields []string
	for _, c := range se.ErrStatus.Details.Causes {
		fields = append(fields, c.Field)
	}
	if got := strings.Join(fields, ","); got != "metadata.labels,spec.size" {
		t.Fatalf("cause fields %s, want metadata.labels,spec.size", got)
	}
}

func TestCreateFieldValidation(t *testing.T) {
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"f","bogus":1},"spec":{"size":1,"bogus":2,"size":3}}`
	tests := map[string]struct {
		fv       engine.FieldValidation
		warnings string
	}{
		"default warns": {fv: "", warnings: `duplicate field "spec.size"|unknown field "metadata.bogus"|unknown field "spec.bogus"`},
		"warn":          {fv: engine.FieldValidationWarn, warnings: `duplicate field "spec.size"|unknown field "metadata.bogus"|unknown field "spec.bogus"`},
		"ignore":        {fv: engine.FieldValidationIgnore},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{FieldValidation: tc.fv}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Warnings, "|"); got != tc.warnings {
				t.Fatalf("warnings %q, want %q", got, tc.warnings)
			}
			if gjson.GetBytes(res.Object, "spec.bogus").Exists() || gjson.GetBytes(res.Object, "metadata.bogus").Exists() {
				t.Fatalf("unknown fields kept: %s", res.Object)
			}
			if gjson.GetBytes(res.Object, "spec.size").Int() != 3 {
				t.Fatalf("the last duplicate should win: %s", res.Object)
			}
		})
	}
}

func TestCreateGenerateName(t *testing.T) {
	s, _ := newStore(t)
	ex := loadExchange(t, "19")
	res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default"}, Body: ex.requestBody(), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	name := gjson.GetBytes(res.Object, "metadata.name").String()
	if !regexp.MustCompile(`^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(name) {
		t.Fatalf("generated name %q", name)
	}
	want := strings.Replace(string(withoutServerFields(t, ex.Response.Body)), "gen-b2pnr", name, 1)
	sameJSON(t, withoutServerFields(t, res.Object), []byte(want))

	// A long generateName is cut so the name fits 63 characters.
	long := strings.Repeat("a", 70)
	res, err = s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default"}, Body: []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"` + long + `"},"spec":{"size":1}}`), Options: engine.WriteOptions{}})

	if err != nil {
		t.Fatal(err)
	}
	if n := len(gjson.GetBytes(res.Object, "metadata.name").String()); n != 63 {
		t.Fatalf("generated name length %d, want 63", n)
	}
}

func TestCreateDropsStatusAndServerFields(t *testing.T) {
	s, _ := newStore(t)
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"s","namespace":"default",
		"uid":"x","resourceVersion":"77","generation":9,"creationTimestamp":"2001-01-01T00:00:00Z",
		"managedFields":[{"manager":"m","operation":"Update","apiVersion":"shop.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{}}}}]},
		"spec":{"size":1},"status":{"ready":true}}`
	res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	o := gjson.ParseBytes(res.Object)
	if o.Get("status").Exists() {
		t.Fatalf("status kept on create: %s", res.Object)
	}
	if o.Get("metadata.uid").String() == "x" || o.Get("metadata.generation").Int() != 1 ||
		o.Get("metadata.creationTimestamp").String() != "2026-11-21T10:19:21Z" || rvOf(res.Object) == "77" {
		t.Fatalf("server-owned metadata not set: %s", res.Object)
	}
	if o.Get("metadata.managedFields.0.manager").String() != "m" {
		t.Fatalf("managedFields dropped: %s", res.Object)
	}
}

func TestCreateClusterScopedDropsNamespace(t *testing.T) {
	s, _ := newStore(t)
	body := `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"n","namespace":"x"},"spec":{"city":"Oslo"}}`
	res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: warehouses(t), Namespace: ""}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "metadata.namespace").Exists() {
		t.Fatalf("namespace kept: %s", res.Object)
	}
}

func TestCreateDryRunStoresNothing(t *testing.T) {
	s, st := newStore(t)
	ctx := context.Background()
	res, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default"}, Body: []byte(widget("dry", 1)), Options: engine.WriteOptions{DryRun: true}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "metadata.resourceVersion").Exists() {
		t.Fatalf("dry run answered a resourceVersion: %s", res.Object)
	}
	if gjson.GetBytes(res.Object, "spec.color").String() != "red" || gjson.GetBytes(res.Object, "metadata.uid").String() == "" {
		t.Fatalf("dry run skipped defaulting or metadata: %s", res.Object)
	}
	all, err := st.List(ctx, "/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range all.Items {
		if strings.HasSuffix(kv.Key, "/dry") {
			t.Fatalf("dry run stored %s", kv.Key)
		}
	}
	if _, err := s.Get(ctx, engine.Ref{Version: widgets(t), Namespace: "default", Name: "dry"}); !apierrors.IsNotFound(err) {
		t.Fatalf("Get after dry run: %v", err)
	}
}

func TestCreateStoresNoResourceVersion(t *testing.T) {
	s, st := newStore(t)
	mustCreate(t, s, widgets(t), "default", widget("w", 1))
	all, err := st.List(context.Background(), "/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range all.Items {
		if strings.HasSuffix(kv.Key, "/default/w") && gjson.GetBytes(kv.Value, "metadata.resourceVersion").Exists() {
			t.Fatalf("stored bytes carry a resourceVersion: %s", kv.Value)
		}
	}
}

func TestCreateGenerateNameRetriesOnCollision(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	names := []string{"gen-aaaaa", "gen-aaaaa", "gen-bbbbb"}
	engine.SetNameGenerator(s, func(base string) string {
		n := names[0]
		if len(names) > 1 {
			names = names[1:]
		}
		return n
	})
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"gen-"},"spec":{"size":1}}`
	first, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := gjson.GetBytes(first.Object, "metadata.name").String(), gjson.GetBytes(second.Object, "metadata.name").String(); a != "gen-aaaaa" || b != "gen-bbbbb" {
		t.Fatalf("names %s and %s, want gen-aaaaa and gen-bbbbb", a, b)
	}
	got, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "gen-bbbbb"})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, second.Object)

	// When every attempt collides the answer is kube's generate-name conflict.
	names = []string{"gen-aaaaa"}
	_, err = s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}})
	if !apierrors.IsAlreadyExists(err) || !strings.Contains(err.Error(), "not able to generate a unique name") {
		t.Fatalf("error %v, want a generate-name conflict", err)
	}
	// A body with a name never gets another one.
	_, err = s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"gen-aaaaa","generateName":"gen-"},"spec":{"size":1}}`), Options: engine.WriteOptions{}})
	if !apierrors.IsAlreadyExists(err) || strings.Contains(err.Error(), "generate") {
		t.Fatalf("error %v, want already exists", err)
	}
}
