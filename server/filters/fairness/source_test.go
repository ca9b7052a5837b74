package fairness

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
)

// The built-in lists hold kube's mandatory then suggested objects, stamped
// with the fixed version and uid, and leave the shared bootstrap objects as
// they were.
func TestBuiltinLists(t *testing.T) {
	fc := builtinClient{}.FlowcontrolV1()
	schemas, err := fc.FlowSchemas().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := len(bootstrap.MandatoryFlowSchemas) + len(bootstrap.SuggestedFlowSchemas)
	if len(schemas.Items) != want || schemas.Items[0].Name != bootstrap.MandatoryFlowSchemas[0].Name {
		t.Fatalf("got %d FlowSchemas starting with %q, want %d starting with %q",
			len(schemas.Items), schemas.Items[0].Name, want, bootstrap.MandatoryFlowSchemas[0].Name)
	}
	levels, err := fc.PriorityLevelConfigurations().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(bootstrap.MandatoryPriorityLevelConfigurations) + len(bootstrap.SuggestedPriorityLevelConfigurations); len(levels.Items) != want {
		t.Fatalf("got %d PriorityLevelConfigurations, want %d", len(levels.Items), want)
	}
	for _, pl := range levels.Items {
		if pl.ResourceVersion != builtinVersion || pl.UID != builtinUID("prioritylevelconfigurations", pl.Name) {
			t.Errorf("%s: resourceVersion %q uid %q", pl.Name, pl.ResourceVersion, pl.UID)
		}
	}
	for _, fs := range schemas.Items {
		if fs.ResourceVersion != builtinVersion || fs.UID != builtinUID("flowschemas", fs.Name) {
			t.Errorf("%s: resourceVersion %q uid %q", fs.Name, fs.ResourceVersion, fs.UID)
		}
	}
	if bootstrap.MandatoryFlowSchemas[0].UID != "" {
		t.Errorf("the shared bootstrap FlowSchema was stamped: uid %q", bootstrap.MandatoryFlowSchemas[0].UID)
	}
}
