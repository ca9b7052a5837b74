package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/plugins/hook"
)

// TestWriteChecks: a resource's WriteCheck sees every create, update and
// patch in the storage version (with the stored object on update), and
// its error refuses the write as it is, before anything is stored.
func TestWriteChecks(t *testing.T) {
	rv := widgets(t)
	var seen []hook.AdmissionRequest
	check := func(_ context.Context, req hook.AdmissionRequest) error {
		seen = append(seen, req)
		if gjson.GetBytes(req.Object, "spec.size").Int() > 5 {
			return apierrors.NewForbidden(schema.GroupResource{Group: rv.Resource.Group, Resource: "widgets"}, req.Name, fmt.Errorf("too big"))
		}
		return nil
	}
	s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))},
		WriteChecks: map[string]engine.WriteCheck{"widgets.shop.example.com": check}})
	ctx := context.Background()
	mustCreate(t, s, rv, "ns", widget("a", 1))
	if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: []byte(widget("b", 9)), Options: engine.WriteOptions{}}); !apierrors.IsForbidden(err) {
		t.Fatalf("create of a big widget: %v, want 403", err)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "ns", Name: "b"}); !apierrors.IsNotFound(err) {
		t.Fatalf("refused widget stored: %v", err)
	}
	_, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "ns", Name: "a"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"size":7}}`), Options: engine.PatchOptions{}})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("patch to a big widget: %v, want 403", err)
	}
	if len(seen) != 3 {
		t.Fatalf("check saw %d writes, want 3", len(seen))
	}
	up := seen[2]
	if up.Operation != hook.OperationUpdate || up.Version != "v1" || up.Namespace != "ns" || up.Name != "a" ||
		gjson.GetBytes(up.OldObject, "spec.size").Int() != 1 {
		t.Errorf("patch's check request = %+v", up)
	}
	if seen[0].Operation != hook.OperationCreate || seen[0].OldObject != nil {
		t.Errorf("create's check request = %+v", seen[0])
	}
}
