package namespace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

// TestFinalizerNames: spec.finalizers takes kube's standard names and
// qualified ones (domain/name); any other is refused with kube's 422, at
// spec.finalizers on a create and at each index through finalize.
func TestFinalizerNames(t *testing.T) {
	e := newEnv(t)
	const neither = "name is neither a standard finalizer name nor is it fully qualified"
	tests := map[string]struct {
		finalizers string
		field      string // "" when accepted
		detail     string
	}{
		"standard":          {finalizers: `["kubernetes","orphan","foregroundDeletion"]`},
		"qualified":         {finalizers: `["example.com/cleanup"]`},
		"no domain":         {finalizers: `["cleanup"]`, field: "spec.finalizers", detail: neither},
		"not a name":        {finalizers: `["example.com/a b"]`, field: "spec.finalizers", detail: "name part must consist of alphanumeric characters"},
		"domain not a name": {finalizers: `["Example_com/x"]`, field: "spec.finalizers", detail: "prefix part a lowercase RFC 1123 subdomain"},
	}
	i := 0
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			i++
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"f%d"},"spec":{"finalizers":%s}}`, i, tc.finalizers)
			_, err := e.create("", "", "namespaces", body)
			checkInvalid(t, err, tc.field, tc.detail)
		})
	}
	obj := e.mustCreate(t, "", "", "namespaces", namespaceJSON("fin"))
	body, _ := sjson.SetBytes(obj, "spec.finalizers", []string{"kubernetes", "cleanup"})
	_, err := e.store.Update(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: e.rv("", "namespaces"), Namespace: "", Name: "fin", Subresource: "finalize"}, Body: body, Options: engine.WriteOptions{}})
	checkInvalid(t, err, "spec.finalizers[1]", neither)
}

// checkInvalid checks err is nil when field is "", else kube's 422 for a
// Namespace with one cause at field whose message has detail.
func checkInvalid(t *testing.T, err error, field, detail string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	st, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want 422 Invalid", err)
	}
	d := st.Status().Details
	if d == nil || d.Kind != "Namespace" || len(d.Causes) == 0 || d.Causes[0].Field != field || !strings.Contains(d.Causes[0].Message, detail) {
		t.Fatalf("got %+v, want a cause at %s with %q", st.Status(), field, detail)
	}
}
