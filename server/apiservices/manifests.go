package apiservices

import (
	"fmt"
	"io"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/schemas"
)

// Labels of the APIServices specd makes: ManagedByLabel says specd made
// one, ServiceLabel for which Service ("NAMESPACE.NAME"), so that a
// Registrar withdraws only its own.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "specd"
	ServiceLabel   = "apiservices.specd.io/service"
)

// Defaults of the priorities, those of sample-apiserver: a group below
// kube's own (which are 16000 to 18000) and among the CRDs' (1000).
const (
	DefaultGroupPriorityMinimum = 1000
	DefaultVersionPriority      = 15
)

// Config is where the host reaches specd, and what it trusts.
type Config struct {
	// Namespace, Service and Port name the host Service in front of
	// specd (a ClusterIP Service, or an ExternalName one).
	Namespace, Service string
	Port               int32
	// CABundle is the PEM of the CA of specd's serving certificate,
	// which must be valid for SERVICE.NAMESPACE.svc; none leaves it to
	// a CA injector.
	CABundle []byte
	// Skip are the groups never registered: the host's own.
	Skip []string
}

// serviceLabel is the value of ServiceLabel.
func (c Config) serviceLabel() string { return c.Namespace + "." + c.Service }

// Manifests are the APIServices of reg's served group versions, sorted by
// name (VERSION.GROUP).
func Manifests(reg *schemas.Registry, c Config) []apiregistrationv1.APIService {
	var out []apiregistrationv1.APIService
	for _, g := range reg.Groups() {
		if slices.Contains(c.Skip, g.Name) {
			continue
		}
		for _, gv := range g.ServedVersions() {
			out = append(out, manifest(gv, c))
		}
	}
	slices.SortFunc(out, func(a, b apiregistrationv1.APIService) int { return compare(a.Name, b.Name) })
	return out
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// manifest is the APIService of gv.
func manifest(gv *schemas.GroupVersion, c Config) apiregistrationv1.APIService {
	port := c.Port
	return apiregistrationv1.APIService{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   gv.Version + "." + gv.Group,
			Labels: map[string]string{ManagedByLabel: ManagedBy, ServiceLabel: c.serviceLabel()},
		},
		Spec: apiregistrationv1.APIServiceSpec{
			Service:              &apiregistrationv1.ServiceReference{Namespace: c.Namespace, Name: c.Service, Port: &port},
			Group:                gv.Group,
			Version:              gv.Version,
			CABundle:             c.CABundle,
			GroupPriorityMinimum: orDefault(gv.APIService.GroupPriorityMinimum, DefaultGroupPriorityMinimum),
			VersionPriority:      orDefault(gv.APIService.VersionPriority, DefaultVersionPriority),
		},
	}
}

// printed is an APIService as written for kubectl apply: no status.
type printed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              apiregistrationv1.APIServiceSpec `json:"spec"`
}

func orDefault(v, def int32) int32 {
	if v == 0 {
		return def
	}
	return v
}

// Print writes services as one YAML stream, for kubectl apply -f or a
// GitOps repository.
func Print(w io.Writer, services []apiregistrationv1.APIService) error {
	for _, s := range services {
		b, err := yaml.Marshal(printed{TypeMeta: s.TypeMeta, ObjectMeta: s.ObjectMeta, Spec: s.Spec})
		if err != nil {
			return fmt.Errorf("apiservices: %s: %w", s.Name, err)
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return fmt.Errorf("apiservices: %w", err)
		}
	}
	return nil
}
