package apiservices

import (
	"bytes"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
)

func TestManifests(t *testing.T) {
	reg, err := schemas.Load("../../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Namespace: "specd-system", Service: "specd", Port: 8443, CABundle: []byte("CA"), Skip: []string{"library.example.com"}}
	got := Manifests(reg, cfg)
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
		if s.Spec.Service.Namespace != "specd-system" || s.Spec.Service.Name != "specd" || *s.Spec.Service.Port != 8443 ||
			string(s.Spec.CABundle) != "CA" || s.Spec.GroupPriorityMinimum != DefaultGroupPriorityMinimum ||
			s.Spec.VersionPriority != DefaultVersionPriority || s.Labels[ServiceLabel] != "specd-system.specd" ||
			s.Labels[ManagedByLabel] != ManagedBy || s.Name != s.Spec.Version+"."+s.Spec.Group {
			t.Errorf("%s: %+v %+v", s.Name, s.ObjectMeta, s.Spec)
		}
	}
	if want := "v1.fleet.example.com v1.shop.example.com v2beta1.shop.example.com"; strings.Join(names, " ") != want {
		t.Errorf("APIServices %v, want %s", names, want)
	}
	var out bytes.Buffer
	if err := Print(&out, got); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\n"); n != 3 || strings.Contains(out.String(), "status") {
		t.Errorf("printed %d documents:\n%s", n, out.String())
	}
}
