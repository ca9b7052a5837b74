package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// fakePlugins is an hook.Admission whose plugins are functions; it
// records every call.
type fakePlugins struct {
	defaultFn  func(ctx context.Context, req hook.AdmissionRequest) ([]byte, error)
	validateFn func(ctx context.Context, req hook.AdmissionRequest) ([]hook.FieldError, error)

	mu    sync.Mutex
	calls []pluginCall
}

type pluginCall struct {
	hook, plugin string
	req          hook.AdmissionRequest
}

func (f *fakePlugins) Default(ctx context.Context, plugin string, req hook.AdmissionRequest) ([]byte, error) {
	f.record("default", plugin, req)
	if f.defaultFn == nil {
		return req.Object, nil
	}
	return f.defaultFn(ctx, req)
}

func (f *fakePlugins) Validate(ctx context.Context, plugin string, req hook.AdmissionRequest) ([]hook.FieldError, error) {
	f.record("validate", plugin, req)
	if f.validateFn == nil {
		return nil, nil
	}
	return f.validateFn(ctx, req)
}

func (f *fakePlugins) record(hookName, plugin string, req hook.AdmissionRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, pluginCall{hookName, plugin, req})
}

// took returns the calls so far and forgets them.
func (f *fakePlugins) took() []pluginCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

// shipPolicy defaults spec.class to cargo and keeps spec.registry from
// changing, as examples/plugins/ship-policy does.
func shipPolicy() *fakePlugins {
	return &fakePlugins{
		defaultFn: func(_ context.Context, req hook.AdmissionRequest) ([]byte, error) {
			if gjson.GetBytes(req.Object, "spec.class").Exists() {
				return req.Object, nil
			}
			return sjson.SetBytes(req.Object, "spec.class", "cargo")
		},
		validateFn: func(_ context.Context, req hook.AdmissionRequest) ([]hook.FieldError, error) {
			if req.OldObject == nil {
				return nil, nil
			}
			old, cur := gjson.GetBytes(req.OldObject, "spec.registry"), gjson.GetBytes(req.Object, "spec.registry")
			if old.Exists() && old.Str != cur.Str {
				return []hook.FieldError{{Type: "FieldValueInvalid", Field: "spec.registry", Message: "field is immutable", Value: cur.Raw}}, nil
			}
			return nil, nil
		},
	}
}

const shipSchema = `{
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "properties": {
        "class": {"type": "string", "enum": ["cargo", "tanker", "passenger"]},
        "registry": {"type": "string"},
        "crew": {"type": "integer", "default": 12}
      }
    },
    "status": {"type": "object", "properties": {"position": {"type": "string"}}}
  }
}`

// ships is a namespaced Ship with a status subresource whose storage
// version binds default and validate to the plugin "ship-policy".
func ships(tb testing.TB, policy schemas.FailurePolicy, timeout time.Duration) *schemas.ResourceVersion {
	r := &schemas.Resource{Group: "fleet.example.com", Kind: "Ship", ListKind: "ShipList", Plural: "ships",
		Singular: "ship", Scope: schemas.Namespaced, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, StatusSubresource: true, Schema: compile(tb, shipSchema),
		Hooks: &schemas.Hooks{Default: "ship-policy", Validate: "ship-policy", FailurePolicy: policy, Timeout: timeout}}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

func newAdmittingStore(tb testing.TB, a hook.Admission) *engine.Store {
	tb.Helper()
	prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
	opts := engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return testNow }}
	if a != nil {
		opts.Admission = func(*engine.Store) hook.Admission { return a }
	}
	return engine.NewStore(etcdstorage.New(testClient), opts)
}

func ship(name, spec string) []byte {
	return []byte(`{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"` + name + `"},"spec":` + spec + `}`)
}

func TestAdmissionCreate(t *testing.T) {
	ctx := context.Background()
	plugins := shipPolicy()
	store := newAdmittingStore(t, plugins)
	rv := ships(t, schemas.FailurePolicyFail, time.Second)

	res, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", `{"registry":"Oslo"}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(res.Object, "spec.class").Str; got != "cargo" {
		t.Errorf("created spec.class = %q, want the plugin's cargo", got)
	}
	stored, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "sea", Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(stored, "spec.class").Str; got != "cargo" {
		t.Errorf("stored spec.class = %q, want cargo", got)
	}
	calls := plugins.took()
	if len(calls) != 2 || calls[0].hook != "default" || calls[1].hook != "validate" {
		t.Fatalf("calls = %+v, want default then validate", calls)
	}
	d, v := calls[0].req, calls[1].req
	if d.Operation != "CREATE" || d.Namespace != "sea" || d.Name != "a" || d.Kind != "Ship" || d.Resource != "ships" || d.OldObject != nil {
		t.Errorf("default request = %+v", d)
	}
	// The plugin defaults after the schema, with the namespace set.
	if gjson.GetBytes(d.Object, "spec.crew").Int() != 12 || gjson.GetBytes(d.Object, "metadata.namespace").Str != "sea" {
		t.Errorf("default saw %s, want the schema's defaults and the namespace", d.Object)
	}
	// Validation sees the object as it will be stored.
	if !gjson.GetBytes(v.Object, "metadata.uid").Exists() || gjson.GetBytes(v.Object, "spec.class").Str != "cargo" {
		t.Errorf("validate saw %s, want the defaulted object with its metadata", v.Object)
	}
}

func TestAdmissionRejectsUpdate(t *testing.T) {
	ctx := context.Background()
	store := newAdmittingStore(t, shipPolicy())
	rv := ships(t, schemas.FailurePolicyFail, time.Second)
	created, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", `{"registry":"Oslo"}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := sjson.SetBytes(created.Object, "spec.registry", "Bergen")
	_, err = store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea", Name: "a"}, Body: body, Options: engine.WriteOptions{}})
	sameJSON(t, statusOf(t, err), []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Ship.fleet.example.com \"a\" is invalid: spec.registry: Invalid value: \"Bergen\": field is immutable",
		"reason":"Invalid","details":{"name":"a","group":"fleet.example.com","kind":"Ship",
		"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"Bergen\": field is immutable","field":"spec.registry"}]},
		"code":422}`))
	got, _ := store.Get(ctx, engine.Ref{Version: rv, Namespace: "sea", Name: "a"})
	if gjson.GetBytes(got, "spec.registry").Str != "Oslo" {
		t.Errorf("a rejected update was stored: %s", got)
	}
	// Every way to update runs the plugin.
	patches := map[string]struct {
		pt    engine.PatchType
		patch string
	}{
		"merge": {engine.MergePatchType, `{"spec":{"registry":"Bergen"}}`},
		"json":  {engine.JSONPatchType, `[{"op":"replace","path":"/spec/registry","value":"Bergen"}]`},
		"apply": {engine.ApplyPatchType, `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"a"},"spec":{"registry":"Bergen"}}`},
	}
	for name, p := range patches {
		_, err := store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "sea", Name: "a"}, Type: p.pt, Patch: []byte(p.patch), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "test"}, Force: true}})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "field is immutable") {
			t.Errorf("%s patch: %v, want the plugin's 422", name, err)
		}
	}
	// A change the plugin allows goes through.
	if _, err := store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "sea", Name: "a"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"class":"tanker"}}`), Options: engine.PatchOptions{}}); err != nil {
		t.Errorf("allowed patch: %v", err)
	}
}

func TestAdmissionStatusWrites(t *testing.T) {
	ctx := context.Background()
	plugins := shipPolicy()
	store := newAdmittingStore(t, plugins)
	rv := ships(t, schemas.FailurePolicyFail, time.Second)
	created, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", `{"registry":"Oslo"}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	// A defaulting plugin that changes spec on a status write: only
	// status may change there.
	plugins.defaultFn = func(_ context.Context, req hook.AdmissionRequest) ([]byte, error) {
		return sjson.SetBytes(req.Object, "spec.class", "passenger")
	}
	plugins.took()
	body, _ := sjson.SetBytes(created.Object, "status.position", "North Sea")
	res, err := store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea", Name: "a", Subresource: "status"}, Body: body, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "status.position").Str != "North Sea" || gjson.GetBytes(res.Object, "spec.class").Str != "cargo" {
		t.Errorf("status write answered %s, want the new status and the old spec", res.Object)
	}
	for _, c := range plugins.took() {
		if c.req.Subresource != "status" || c.req.Operation != "UPDATE" || c.req.OldObject == nil {
			t.Errorf("%s on a status write: %+v", c.hook, c.req)
		}
	}
	_, err = store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "sea", Name: "a", Subresource: "status"}, Type: engine.MergePatchType, Patch: []byte(`{"status":{"position":"Skagerrak"}}`), Options: engine.PatchOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if calls := plugins.took(); len(calls) != 2 || calls[1].req.Subresource != "status" {
		t.Errorf("status patch calls: %+v", calls)
	}
}

func TestAdmissionDryRun(t *testing.T) {
	ctx := context.Background()
	plugins := shipPolicy()
	store := newAdmittingStore(t, plugins)
	rv := ships(t, schemas.FailurePolicyFail, time.Second)
	res, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", `{}`), Options: engine.WriteOptions{DryRun: true}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.class").Str != "cargo" {
		t.Errorf("dry run answered %s, want it defaulted by the plugin", res.Object)
	}
	for _, c := range plugins.took() {
		if !c.req.DryRun {
			t.Errorf("%s was not told of the dry run", c.hook)
		}
	}
	if _, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "sea", Name: "a"}); !apierrors.IsNotFound(err) {
		t.Errorf("dry run stored the object: %v", err)
	}
}

func TestAdmissionDefaulterOutput(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		out      func(obj []byte) ([]byte, error)
		body     string
		wantCode int32
		wantMsg  string
		check    func(t *testing.T, obj []byte)
	}{
		"fails the schema": {
			out:      func(obj []byte) ([]byte, error) { return sjson.SetBytes(obj, "spec.class", "submarine") },
			body:     `{}`,
			wantCode: 422,
			wantMsg:  `spec.class: Unsupported value: "submarine"`,
		},
		"the client's own mistake is the client's": {
			out:      func(obj []byte) ([]byte, error) { return obj, nil },
			body:     `{"class":"rowboat"}`,
			wantCode: 422,
			wantMsg:  `Ship.fleet.example.com "a" is invalid: spec.class: Unsupported value: "rowboat"`,
		},
		"renames the object": {
			out:      func(obj []byte) ([]byte, error) { return sjson.SetBytes(obj, "metadata.name", "b") },
			body:     `{}`,
			wantCode: 500,
			wantMsg:  `plugin "ship-policy" (default) answered wrongly: it changed metadata.name from "a" to "b"`,
		},
		"another kind": {
			out:      func(obj []byte) ([]byte, error) { return sjson.SetBytes(obj, "kind", "Boat") },
			body:     `{}`,
			wantCode: 500,
			wantMsg:  `plugin "ship-policy" (default) answered wrongly: its answer is not a fleet.example.com/v1 Ship`,
		},
		"a bad label": {
			out:      func(obj []byte) ([]byte, error) { return sjson.SetBytes(obj, "metadata.labels.bad", "not ok!") },
			body:     `{}`,
			wantCode: 422,
			wantMsg:  `metadata.labels: Invalid value: "not ok!"`,
		},
		"unknown fields are pruned, labels kept, defaults applied again": {
			out: func(obj []byte) ([]byte, error) {
				obj, _ = sjson.SetBytes(obj, "spec.sails", 3)
				obj, _ = sjson.SetBytes(obj, "metadata.labels.fleet", "north")
				obj, _ = sjson.DeleteBytes(obj, "spec.crew")
				return sjson.SetBytes(obj, "spec.class", "tanker")
			},
			body: `{}`,
			check: func(t *testing.T, obj []byte) {
				if gjson.GetBytes(obj, "spec.sails").Exists() || gjson.GetBytes(obj, "metadata.labels.fleet").Str != "north" ||
					gjson.GetBytes(obj, "spec.crew").Int() != 12 || gjson.GetBytes(obj, "spec.class").Str != "tanker" {
					t.Errorf("created %s", obj)
				}
			},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			plugins := &fakePlugins{defaultFn: func(_ context.Context, req hook.AdmissionRequest) ([]byte, error) { return tt.out(req.Object) }}
			store := newAdmittingStore(t, plugins)
			rv := ships(t, schemas.FailurePolicyFail, time.Second)
			res, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", tt.body), Options: engine.WriteOptions{}})
			if tt.check != nil {
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, res.Object)
				return
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) || se.ErrStatus.Code != tt.wantCode || !strings.Contains(se.ErrStatus.Message, tt.wantMsg) {
				t.Fatalf("create: %v, want %d with %q", err, tt.wantCode, tt.wantMsg)
			}
			if _, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "sea", Name: "a"}); !apierrors.IsNotFound(err) {
				t.Errorf("a refused object was stored: %v", err)
			}
		})
	}
	// The plugin's mistake is named as its.
	plugins := &fakePlugins{defaultFn: func(_ context.Context, req hook.AdmissionRequest) ([]byte, error) {
		return sjson.SetBytes(req.Object, "spec.class", "submarine")
	}}
	_, err := newAdmittingStore(t, plugins).Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: ships(t, schemas.FailurePolicyFail, time.Second), Namespace: "sea"}, Body: ship("a", `{}`), Options: engine.WriteOptions{}})
	if err == nil || !strings.Contains(err.Error(), `(as defaulted by plugin "ship-policy")`) {
		t.Errorf("create: %v, want the plugin named", err)
	}
}

func TestAdmissionFailurePolicy(t *testing.T) {
	ctx := context.Background()
	broken := errors.New(`plugin "ship-policy": connection refused`)
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	tests := map[string]struct {
		policy     schemas.FailurePolicy
		defaultErr func(ctx context.Context) error
		validErr   func(ctx context.Context) error
		noPlugins  bool
		wantMsg    string // "" when the create succeeds
		wantClass  string
	}{
		"default fails, Fail": {
			policy:     schemas.FailurePolicyFail,
			defaultErr: func(context.Context) error { return broken },
			wantMsg:    `Internal error occurred: failed calling plugin "ship-policy" (default): plugin "ship-policy": connection refused`,
		},
		"validate fails, Fail": {
			policy:   schemas.FailurePolicyFail,
			validErr: func(context.Context) error { return broken },
			wantMsg:  `failed calling plugin "ship-policy" (validate)`,
		},
		"validate hangs, Fail: cut off by the timeout": {
			policy:   schemas.FailurePolicyFail,
			validErr: hang,
			wantMsg:  `failed calling plugin "ship-policy" (validate): context deadline exceeded`,
		},
		"no plugins, Fail": {
			policy:    schemas.FailurePolicyFail,
			noPlugins: true,
			wantMsg:   `failed calling plugin "ship-policy" (default): engine: no plugins are configured`,
		},
		"default fails, Ignore: written as the client sent it": {
			policy:     schemas.FailurePolicyIgnore,
			defaultErr: func(context.Context) error { return broken },
			wantClass:  "",
		},
		"default hangs, validate fails, Ignore": {
			policy:     schemas.FailurePolicyIgnore,
			defaultErr: hang,
			validErr:   func(context.Context) error { return broken },
			wantClass:  "",
		},
		"no plugins, Ignore": {
			policy:    schemas.FailurePolicyIgnore,
			noPlugins: true,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			plugins := shipPolicy()
			def, val := plugins.defaultFn, plugins.validateFn
			plugins.defaultFn = func(ctx context.Context, req hook.AdmissionRequest) ([]byte, error) {
				if tt.defaultErr != nil {
					return nil, tt.defaultErr(ctx)
				}
				return def(ctx, req)
			}
			plugins.validateFn = func(ctx context.Context, req hook.AdmissionRequest) ([]hook.FieldError, error) {
				if tt.validErr != nil {
					return nil, tt.validErr(ctx)
				}
				return val(ctx, req)
			}
			var a hook.Admission = plugins
			if tt.noPlugins {
				a = nil
			}
			store := newAdmittingStore(t, a)
			rv := ships(t, tt.policy, 50*time.Millisecond)
			start := time.Now()
			res, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", `{}`), Options: engine.WriteOptions{}})
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("create took %s", took)
			}
			if tt.wantMsg != "" {
				if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("create: %v, want a 500 with %q", err, tt.wantMsg)
				}
				if _, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "sea", Name: "a"}); !apierrors.IsNotFound(err) {
					t.Errorf("a refused object was stored: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if got := gjson.GetBytes(res.Object, "spec.class").Str; got != tt.wantClass {
				t.Errorf("spec.class = %q, want %q", got, tt.wantClass)
			}
		})
	}
}

// TestAdmissionCauses: every field error type a plugin may name comes back
// as the cause kube-apiserver would write for it.
func TestAdmissionCauses(t *testing.T) {
	ctx := context.Background()
	fes := []hook.FieldError{
		{Type: "FieldValueRequired", Field: "spec.captain", Message: "a ship needs a captain"},
		{Type: "FieldValueForbidden", Field: "spec.class", Message: "tankers may not sail here"},
		{Type: "FieldValueInvalid", Field: "spec.crew", Message: "too few", Value: "2"},
		{Type: "Bogus", Field: "spec", Message: "no value"},
	}
	plugins := &fakePlugins{validateFn: func(context.Context, hook.AdmissionRequest) ([]hook.FieldError, error) { return fes, nil }}
	_, err := newAdmittingStore(t, plugins).Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: ships(t, schemas.FailurePolicyFail, time.Second), Namespace: "sea"}, Body: ship("a", `{}`), Options: engine.WriteOptions{}})
	var st struct {
		Details struct {
			Causes []map[string]string `json:"causes"`
		} `json:"details"`
	}
	if err := json.Unmarshal(statusOf(t, err), &st); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(st.Details.Causes)
	want := `[{"field":"spec.captain","message":"Required value: a ship needs a captain","reason":"FieldValueRequired"},` +
		`{"field":"spec.class","message":"Forbidden: tankers may not sail here","reason":"FieldValueForbidden"},` +
		`{"field":"spec.crew","message":"Invalid value: 2: too few","reason":"FieldValueInvalid"},` +
		`{"field":"spec","message":"Invalid value: no value","reason":"FieldValueInvalid"}]`
	if string(got) != want {
		t.Errorf("causes\n got %s\nwant %s", got, want)
	}
}

// TestAdmissionSubresource checks what a plugin is told about the write
// it admits: the subresource written, as Kubernetes admission tells it.
func TestAdmissionSubresource(t *testing.T) {
	ctx := context.Background()
	plugins := &fakePlugins{}
	store := newAdmittingStore(t, plugins)
	rv := replicated(t)
	rv.Hooks = &schemas.Hooks{Default: "pool-policy", Validate: "pool-policy", FailurePolicy: schemas.FailurePolicyFail, Timeout: time.Second}
	pool := []byte(`{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2,"selector":"app=p"}}`)
	created, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: pool, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	scaleTo := func(n string) []byte {
		return []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":` + n + `}}`)
	}
	tests := []struct {
		name  string
		write func() error
		want  string
	}{
		{"update", func() error {
			cur, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p"})
			if err != nil {
				return err
			}
			_, err = store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p"}, Body: cur, Options: engine.WriteOptions{}})
			return err
		}, ""},
		{"merge patch", func() error {
			_, err := store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"selector":"app=q"}}`), Options: engine.PatchOptions{}})
			return err
		}, ""},
		{"status", func() error {
			_, err := store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "status"}, Type: engine.MergePatchType, Patch: []byte(`{"status":{"replicas":1}}`), Options: engine.PatchOptions{}})
			return err
		}, "status"},
		{"scale update", func() error {
			_, err := store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Body: scaleTo("3"), Options: engine.WriteOptions{}})
			return err
		}, "scale"},
		{"scale patch", func() error {
			_, err := store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"replicas":4}}`), Options: engine.PatchOptions{}})
			return err
		}, "scale"},
	}
	if calls := plugins.took(); len(calls) != 2 || calls[0].req.Subresource != "" || created.Object == nil {
		t.Fatalf("create calls: %+v", calls)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.write(); err != nil {
				t.Fatal(err)
			}
			calls := plugins.took()
			if len(calls) != 2 {
				t.Fatalf("%d plugin calls, want default and validate: %+v", len(calls), calls)
			}
			for _, c := range calls {
				if c.req.Subresource != tc.want || c.req.Operation != hook.OperationUpdate {
					t.Errorf("%s told subresource %q, operation %q; want %q, UPDATE", c.hook, c.req.Subresource, c.req.Operation, tc.want)
				}
			}
		})
	}
}
