package crd

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// TestCreateCheckWhileTerminating: a create of a CRD's resource is
// refused with kube's 403 once the CRD is being deleted, and only then;
// a resource that a file's CRD declares is never refused.
func TestCreateCheckWhileTerminating(t *testing.T) {
	const name = "widgets.example.com"
	crd := `{"metadata":{"name":"widgets.example.com"%s},"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"}}%s}`
	tests := map[string]struct {
		meta, status, file string
		want               string
	}{
		"served":    {file: source(name)},
		"deleting":  {meta: `,"deletionTimestamp":"2026-11-28T00:00:00Z"`, file: source(name), want: `widgets.example.com "w" is forbidden: create not allowed while custom resource definition is terminating`},
		"condition": {status: `,"status":{"conditions":[{"type":"Terminating","status":"True"}]}`, file: source(name), want: `widgets.example.com "w" is forbidden: create not allowed while custom resource definition is terminating`},
		"from file": {meta: `,"deletionTimestamp":"2026-11-28T00:00:00Z"`, file: "crds/widgets.yaml"},
	}
	for tname, tc := range tests {
		t.Run(tname, func(t *testing.T) {
			a := New(Config{Registry: func() *schemas.Registry { return nil }})
			a.Apply(engine.WatchEvent{Type: storage.EventAdded, Object: []byte(fmt.Sprintf(crd, tc.meta, tc.status))})
			r := &schemas.Resource{Group: "example.com", Plural: "widgets", CRD: name}
			r.Versions = []*schemas.ResourceVersion{{File: tc.file}}
			err := a.CreateCheck(context.Background(), r, "w")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
			case !apierrors.IsForbidden(err) || err.Error() != tc.want:
				t.Fatalf("got %v, want 403 %q", err, tc.want)
			}
		})
	}
}
