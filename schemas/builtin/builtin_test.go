package builtin_test

import (
	"slices"
	"testing"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// TestFilesLoad proves that the built-in files load on their own and
// declare only reserved groups.
func TestFilesLoad(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range reg.Groups() {
		if !slices.Contains(builtin.ReservedGroups(), g.Name) {
			t.Errorf("group %s is built in but not reserved", g.Name)
		}
	}
}

func TestRBACResources(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		kind  string
		scope schemas.Scope
	}{
		"roles":               {"Role", schemas.Namespaced},
		"rolebindings":        {"RoleBinding", schemas.Namespaced},
		"clusterroles":        {"ClusterRole", schemas.Cluster},
		"clusterrolebindings": {"ClusterRoleBinding", schemas.Cluster},
	}
	for plural, want := range tests {
		t.Run(plural, func(t *testing.T) {
			rv := reg.Lookup("rbac.authorization.k8s.io", "v1", plural)
			if rv == nil {
				t.Fatalf("rbac.authorization.k8s.io/v1 %s is not served", plural)
			}
			res := rv.Resource
			if res.Kind != want.kind || res.Scope != want.scope || res.ListKind != want.kind+"List" {
				t.Errorf("got kind %s, list kind %s, scope %s; want %s, %sList, %s",
					res.Kind, res.ListKind, res.Scope, want.kind, want.kind, want.scope)
			}
			if res.NameValidation != schemas.PathSegmentNames {
				t.Errorf("names are %s, want %s as kube's RBAC names (system:discovery)", res.NameValidation, schemas.PathSegmentNames)
			}
			if !rv.Storage || rv.StatusSubresource {
				t.Errorf("storage %v, status subresource %v: want a storage version without status", rv.Storage, rv.StatusSubresource)
			}
		})
	}
	if n := len(reg.Group("rbac.authorization.k8s.io").Resources); n != len(tests) {
		t.Errorf("%d RBAC resources, want %d", n, len(tests))
	}
}

// TestDisableKeepsStoredWith: a registry with the core events switched
// off still links events.k8s.io's Event to its storage resource, and to
// that registry's copy, which says the core events are not served; so
// the namespace controller deletes the events through events.k8s.io.
func TestDisableKeepsStoredWith(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	off, err := reg.Disable("api/v1/events")
	if err != nil {
		t.Fatal(err)
	}
	ev := off.Resource("events.events.k8s.io")
	if ev == nil || ev.StoredWith == nil {
		t.Fatalf("events.k8s.io events: %+v", ev)
	}
	if ev.StoredWith != off.Resource("events") {
		t.Error("StoredWith points into the registry the copy was made from")
	}
	if ev.StoredWith.Served() {
		t.Error("the switched-off core events say they are served")
	}
}

// TestHostGroups: aggregated, every reserved group but specd's own
// status.specd.io is the host's, so that the host gets an APIService
// for status.specd.io and none for the groups it serves itself.
func TestHostGroups(t *testing.T) {
	host := builtin.HostGroups()
	for _, g := range builtin.ReservedGroups() {
		if want := g != "status.specd.io"; slices.Contains(host, g) != want {
			t.Errorf("%s among the host's groups: %v, want %v", g, !want, want)
		}
	}
}
