package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// created07 creates the recorded w1 and returns it.
func created07(t *testing.T, s *engine.Store) []byte {
	t.Helper()
	return mustCreate(t, s, widgets(t), "default", string(loadExchange(t, "07").requestBody()))
}

func set(t *testing.T, obj []byte, path string, v any) []byte {
	t.Helper()
	out, err := sjson.SetBytes(obj, path, v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUpdateMatchesKube(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	obj := created07(t, s)
	ex := loadExchange(t, "33")
	body := set(t, ex.requestBody(), "metadata.resourceVersion", rvOf(obj))
	body = set(t, body, "metadata.uid", gjson.GetBytes(obj, "metadata.uid").String())
	res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"}, Body: body, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, withoutServerFields(t, res.Object), withoutServerFields(t, ex.Response.Body))
	if gjson.GetBytes(res.Object, "metadata.resourceVersion").Int() <= gjson.GetBytes(obj, "metadata.resourceVersion").Int() {
		t.Fatalf("resourceVersion %s did not move from %s", rvOf(res.Object), rvOf(obj))
	}
	got, err := s.Get(ctx, engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, res.Object)
}

func TestUpdateErrorsMatchKube(t *testing.T) {
	tests := map[string]string{
		"stale resourceVersion":   "31",
		"missing resourceVersion": "32",
	}
	for name, ref := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			obj := created07(t, s)
			ex := loadExchange(t, ref)
			_, err := s.Update(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"}, Body: ex.requestBody(), Options: engine.WriteOptions{}})
			sameJSON(t, statusOf(t, err), ex.Response.Body)
			got, _ := s.Get(context.Background(), engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"})
			if string(got) != string(obj) {
				t.Fatalf("a failed update changed the object:\n%s\n%s", obj, got)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := map[string]struct {
		edit       func(t *testing.T, obj []byte) []byte
		name       string
		opts       engine.WriteOptions
		code       int32
		message    string
		generation int64
		check      func(t *testing.T, out []byte)
	}{
		"labels only keep the generation": {
			edit:       func(t *testing.T, o []byte) []byte { return set(t, o, "metadata.labels.x", "y") },
			generation: 1,
		},
		"spec change bumps the generation": {
			edit:       func(t *testing.T, o []byte) []byte { return set(t, o, "spec.size", 9) },
			generation: 2,
		},
		"status is kept from the stored object": {
			edit:       func(t *testing.T, o []byte) []byte { return set(t, o, "status.ready", true) },
			generation: 1,
			check: func(t *testing.T, out []byte) {
				if gjson.GetBytes(out, "status").Exists() {
					t.Fatalf("status changed through the main endpoint: %s", out)
				}
			},
		},
		"server-owned metadata is kept": {
			edit: func(t *testing.T, o []byte) []byte {
				o = set(t, o, "metadata.creationTimestamp", "2001-01-01T00:00:00Z")
				return set(t, o, "metadata.generation", 7)
			},
			generation: 1,
			check: func(t *testing.T, out []byte) {
				if gjson.GetBytes(out, "metadata.creationTimestamp").String() != "2026-11-21T10:19:21Z" {
					t.Fatalf("creationTimestamp changed: %s", out)
				}
			},
		},
		"empty uid takes the stored one": {
			edit:       func(t *testing.T, o []byte) []byte { o, _ = sjson.DeleteBytes(o, "metadata.uid"); return o },
			generation: 1,
			check: func(t *testing.T, out []byte) {
				if gjson.GetBytes(out, "metadata.uid").String() == "" {
					t.Fatalf("uid lost: %s", out)
				}
			},
		},
		"defaults apply": {
			edit:       func(t *testing.T, o []byte) []byte { o, _ = sjson.DeleteBytes(o, "spec.color"); return o },
			generation: 1,
			check: func(t *testing.T, out []byte) {
				if gjson.GetBytes(out, "spec.color").String() != "red" {
					t.Fatalf("default not applied: %s", out)
				}
			},
		},
		"other uid": {
			edit: func(t *testing.T, o []byte) []byte { return set(t, o, "metadata.uid", "other") },
			code: 409,
		},
		"name differs from the URL": {
			edit:    func(t *testing.T, o []byte) []byte { return set(t, o, "metadata.name", "w2") },
			code:    400,
			message: "the name of the object (w2) does not match the name on the URL (w1)",
		},
		"namespace differs from the URL": {
			edit: func(t *testing.T, o []byte) []byte { return set(t, o, "metadata.namespace", "x") },
			code: 400,
		},
		"missing object": {
			edit:    func(t *testing.T, o []byte) []byte { return set(t, o, "metadata.name", "gone") },
			name:    "gone",
			code:    404,
			message: `widgets.shop.example.com "gone" not found`,
		},
		"invalid": {
			edit:    func(t *testing.T, o []byte) []byte { return set(t, o, "spec.size", 0) },
			code:    422,
			message: `Widget.shop.example.com "w1" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`,
		},
		"malformed resourceVersion": {
			edit: func(t *testing.T, o []byte) []byte { return set(t, o, "metadata.resourceVersion", "abc") },
			code: 422,
		},
		"strict unknown field": {
			edit: func(t *testing.T, o []byte) []byte { return set(t, o, "spec.bogus", 1) },
			opts: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict},
			code: 400,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			ctx := context.Background()
			rv := widgets(t)
			obj := created07(t, s)
			urlName := tc.name
			if urlName == "" {
				urlName = "w1"
			}
			res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: urlName}, Body: tc.edit(t, obj), Options: tc.opts})
			stored, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"})
			if tc.code != 0 {
				var se *apierrors.StatusError
				if !errorsAs(err, &se) || se.ErrStatus.Code != tc.code {
					t.Fatalf("error %v, want code %d", err, tc.code)
				}
				if tc.message != "" && se.ErrStatus.Message != tc.message {
					t.Fatalf("message\n got: %s\nwant: %s", se.ErrStatus.Message, tc.message)
				}
				if string(stored) != string(obj) {
					t.Fatalf("a failed update changed the object")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := gjson.GetBytes(res.Object, "metadata.generation").Int(); g != tc.generation {
				t.Fatalf("generation %d, want %d", g, tc.generation)
			}
			sameJSON(t, stored, res.Object)
			if tc.check != nil {
				tc.check(t, res.Object)
			}
		})
	}
}

func TestUpdateKeepsStatusSet(t *testing.T) {
	s, st := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	obj := created07(t, s)
	// Give the stored object a status, as the status subresource would.
	key := "" // find the key through a list of the raw storage
	all, _ := st.List(ctx, "/", storage.ListOptions{})
	for _, kv := range all.Items {
		if strings.HasSuffix(kv.Key, "/default/w1") {
			key = kv.Key
			v, _ := sjson.SetBytes(kv.Value, "status.ready", true)
			if _, err := st.Update(ctx, key, v, kv.ModRevision); err != nil {
				t.Fatal(err)
			}
		}
	}
	cur, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"})
	body := set(t, cur, "status.ready", false)
	body = set(t, body, "spec.size", 7)
	res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: body, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if !gjson.GetBytes(res.Object, "status.ready").Bool() || gjson.GetBytes(res.Object, "spec.size").Int() != 7 {
		t.Fatalf("status not kept or spec not changed: %s (was %s)", res.Object, obj)
	}
}

func TestUpdateNoChangeKeepsResourceVersion(t *testing.T) {
	s, _ := newStore(t)
	obj := created07(t, s)
	res, err := s.Update(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"}, Body: obj, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if rvOf(res.Object) != rvOf(obj) {
		t.Fatalf("no-op update moved resourceVersion %s -> %s", rvOf(obj), rvOf(res.Object))
	}
}

func TestUpdateDryRunStoresNothing(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	obj := created07(t, s)
	res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"}, Body: set(t, obj, "spec.size", 8), Options: engine.WriteOptions{DryRun: true}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.size").Int() != 8 || gjson.GetBytes(res.Object, "metadata.generation").Int() != 2 {
		t.Fatalf("dry run answer: %s", res.Object)
	}
	got, _ := s.Get(ctx, engine.Ref{Version: widgets(t), Namespace: "default", Name: "w1"})
	if string(got) != string(obj) {
		t.Fatalf("dry run changed the object: %s", got)
	}
}

func TestDeleteMatchesKube(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	obj := mustCreate(t, s, rv, "default", widget("w2", 1))
	res, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := set(t, loadExchange(t, "45").Response.Body, "details.uid", gjson.GetBytes(obj, "metadata.uid").String())
	sameJSON(t, res.Object, want)
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w2"}); !apierrors.IsNotFound(err) {
		t.Fatalf("Get after delete: %v", err)
	}
	_, err = s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, engine.DeleteOptions{})
	sameJSON(t, statusOf(t, err), loadExchange(t, "46").Response.Body)
}

func TestDeletePreconditions(t *testing.T) {
	tests := map[string]struct {
		opts    func(obj []byte) engine.DeleteOptions
		message string
		deleted bool
	}{
		"uid matches": {
			opts: func(o []byte) engine.DeleteOptions {
				return engine.DeleteOptions{UID: gjson.GetBytes(o, "metadata.uid").String()}
			},
			deleted: true,
		},
		"resourceVersion matches": {
			opts:    func(o []byte) engine.DeleteOptions { return engine.DeleteOptions{ResourceVersion: rvOf(o)} },
			deleted: true,
		},
		"uid differs": {
			opts: func(o []byte) engine.DeleteOptions { return engine.DeleteOptions{UID: "x"} },
			message: `Operation cannot be fulfilled on Widget.shop.example.com "w": the UID in the precondition (x) does not match the UID in record (%s). ` +
				`The object might have been deleted and then recreated`,
		},
		"resourceVersion differs": {
			opts: func(o []byte) engine.DeleteOptions { return engine.DeleteOptions{ResourceVersion: "1"} },
			message: `Operation cannot be fulfilled on Widget.shop.example.com "w": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (%s). ` +
				`The object might have been modified`,
		},
		"dry run": {
			opts: func(o []byte) engine.DeleteOptions { return engine.DeleteOptions{DryRun: true} },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			ctx := context.Background()
			rv := widgets(t)
			obj := mustCreate(t, s, rv, "default", widget("w", 1))
			res, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}, tc.opts(obj))
			_, getErr := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"})
			if tc.message != "" {
				var se *apierrors.StatusError
				if !errorsAs(err, &se) || se.ErrStatus.Code != 409 {
					t.Fatalf("error %v, want 409", err)
				}
				record := gjson.GetBytes(obj, "metadata.uid").String()
				if strings.Contains(tc.message, "ResourceVersion in record") {
					record = rvOf(obj)
				}
				if want := strings.Replace(tc.message, "%s", record, 1); se.ErrStatus.Message != want {
					t.Fatalf("message\n got: %s\nwant: %s", se.ErrStatus.Message, want)
				}
				if getErr != nil {
					t.Fatal("a failed delete removed the object")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gjson.GetBytes(res.Object, "status").String() != "Success" ||
				gjson.GetBytes(res.Object, "details.uid").String() != gjson.GetBytes(obj, "metadata.uid").String() {
				t.Fatalf("answer %s", res.Object)
			}
			if gone := apierrors.IsNotFound(getErr); gone != tc.deleted {
				t.Fatalf("deleted = %v, want %v", gone, tc.deleted)
			}
		})
	}
}

// TestUpdateRace runs updates from the same resourceVersion at once:
// exactly one wins, the others get 409 Conflict.
func TestUpdateRace(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := widgets(t)
	obj := created07(t, s)
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		body := set(t, obj, "spec.size", 10+i)
		go func() {
			_, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: body, Options: engine.WriteOptions{}})
			errs <- err
		}()
	}
	won := 0
	for range n {
		err := <-errs
		switch {
		case err == nil:
			won++
		case !apierrors.IsConflict(err):
			t.Fatalf("error %v, want a conflict", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d updates won, want 1", won)
	}
}
