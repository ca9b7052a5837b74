package engine_test

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

func TestUpdateStatus(t *testing.T) {
	tests := map[string]struct {
		edit func(t *testing.T, cur []byte) []byte
		// code is the Status code of the error, 0 for success.
		code int32
		// ready is status.ready after a successful write; "" for no status.
		ready string
	}{
		"sets status only": {
			edit: func(t *testing.T, cur []byte) []byte {
				b := set(t, cur, "status.ready", true)
				b = set(t, b, "spec.size", 9)                   // ignored
				return set(t, b, "metadata.labels.tier", "tin") // ignored
			},
			ready: "true",
		},
		"no status in the body clears it": {
			edit: func(t *testing.T, cur []byte) []byte {
				b, err := sjson.DeleteBytes(cur, "status")
				if err != nil {
					t.Fatal(err)
				}
				return b
			},
			ready: "",
		},
		"status is validated": {
			edit: func(t *testing.T, cur []byte) []byte { return set(t, cur, "status.ready", "yes") },
			code: 422,
		},
		"stale resourceVersion": {
			edit: func(t *testing.T, cur []byte) []byte {
				return set(t, set(t, cur, "status.ready", true), "metadata.resourceVersion", "1")
			},
			code: 409,
		},
		"missing resourceVersion": {
			edit: func(t *testing.T, cur []byte) []byte {
				return set(t, set(t, cur, "status.ready", true), "metadata.resourceVersion", "")
			},
			code: 422,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			ctx := context.Background()
			rv := widgets(t)
			created := created07(t, s)
			// Every case starts from an object whose status is set.
			first, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1", Subresource: "status"}, Body: set(t, created, "status.ready", false), Options: engine.WriteOptions{}})
			if err != nil {
				t.Fatal(err)
			}
			before := first.Object
			res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1", Subresource: "status"}, Body: tc.edit(t, before), Options: engine.WriteOptions{}})
			after, getErr := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"})
			if getErr != nil {
				t.Fatal(getErr)
			}
			if tc.code != 0 {
				var status apierrors.APIStatus
				if !errorsAs(err, &status) || status.Status().Code != tc.code {
					t.Fatalf("err = %v, want a Status with code %d", err, tc.code)
				}
				if string(after) != string(before) {
					t.Fatalf("a failed status write changed the object:\n%s\n%s", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, after, res.Object)
			if got := gjson.GetBytes(after, "status.ready").Raw; got != tc.ready {
				t.Errorf("status.ready = %q, want %q", got, tc.ready)
			}
			for _, path := range []string{"spec", "metadata.labels", "metadata.generation", "metadata.uid", "metadata.creationTimestamp"} {
				if b, a := gjson.GetBytes(created, path).Raw, gjson.GetBytes(after, path).Raw; b != a {
					t.Errorf("%s changed from %s to %s", path, b, a)
				}
			}
		})
	}
}

func TestUpdateStatusWithoutSubresource(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	rv := warehouses(t)
	_, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "w", Subresource: "status"}, Body: []byte(`{}`), Options: engine.WriteOptions{}})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("err = %v, want NotFound", err)
	}
}
