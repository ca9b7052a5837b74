package chart

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// certificate is the part of a cert-manager.io/v1 Certificate the tests
// read.
type certificate struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   map[string]any `json:"metadata"`
	Spec       struct {
		SecretName  string            `json:"secretName"`
		CommonName  string            `json:"commonName"`
		DNSNames    []string          `json:"dnsNames"`
		Duration    string            `json:"duration"`
		RenewBefore string            `json:"renewBefore"`
		Usages      []string          `json:"usages"`
		PrivateKey  map[string]any    `json:"privateKey"`
		IssuerRef   map[string]string `json:"issuerRef"`
	} `json:"spec"`
}

// checkCertManager: a Certificate for the Service's names from the
// chart's self-signed Issuer, its Secret mounted and served.
func checkCertManager(t *testing.T, objs objects, pod corev1.PodTemplateSpec, f map[string]string) {
	t.Helper()
	var cert certificate
	objs.get(t, "Certificate", fullname, &cert)
	svc := fullname + "." + namespace + ".svc"
	if !slices.Contains(cert.Spec.DNSNames, svc) || !slices.Contains(cert.Spec.DNSNames, svc+".cluster.local") || cert.Spec.SecretName != fullname+"-tls" {
		t.Errorf("Certificate %+v, want %s and its Secret %s-tls", cert.Spec, svc, fullname)
	}
	if ref := cert.Spec.IssuerRef; ref["name"] != fullname+"-selfsigned" || ref["kind"] != "Issuer" {
		t.Errorf("issuerRef %v, want the chart's Issuer", ref)
	}
	objs.get(t, "Issuer", fullname+"-selfsigned", &map[string]any{})
	if s := volume(t, pod, "tls").Secret; s == nil || s.SecretName != cert.Spec.SecretName {
		t.Errorf("tls volume %+v, want Secret %s", s, cert.Spec.SecretName)
	}
	checkServingFiles(t, pod, f)
}

// checkServingFiles: --tls-cert-file and --tls-private-key-file in the
// tls volume, and no certificate generated.
func checkServingFiles(t *testing.T, pod corev1.PodTemplateSpec, f map[string]string) {
	t.Helper()
	dir := mountPath(container(t, pod), "tls")
	if dir == "" || f["tls-cert-file"] != dir+"/tls.crt" || f["tls-private-key-file"] != dir+"/tls.key" {
		t.Errorf("flags %v (tls mounted at %q): want the Secret's tls.crt and tls.key", f, dir)
	}
	if _, ok := f["tls-sans"]; ok {
		t.Errorf("flags %v: --tls-sans with a certificate given", f)
	}
}

// checkServiceMonitor: /metrics over HTTPS on the Service's port,
// trusting the serving CA from a secret or configMap named name, and
// authorized as the values say.
func checkServiceMonitor(t *testing.T, objs objects, caFrom, name string) {
	t.Helper()
	var sm struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   map[string]any `json:"metadata"`
		Spec       struct {
			Selector  map[string]any `json:"selector"`
			Endpoints []struct {
				Port          string         `json:"port"`
				Path          string         `json:"path"`
				Scheme        string         `json:"scheme"`
				Interval      string         `json:"interval"`
				Authorization map[string]any `json:"authorization"`
				TLSConfig     struct {
					ServerName string                    `json:"serverName"`
					CA         map[string]map[string]any `json:"ca"`
				} `json:"tlsConfig"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	objs.get(t, "ServiceMonitor", fullname, &sm)
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %+v, want one", sm.Spec.Endpoints)
	}
	e := sm.Spec.Endpoints[0]
	if e.Port != "https" || e.Path != "/metrics" || e.Scheme != "https" || e.Authorization["type"] != "Bearer" {
		t.Errorf("ServiceMonitor endpoint %+v, want /metrics over https with a bearer token", e)
	}
	ca := e.TLSConfig.CA[caFrom]
	if ca["name"] != name || ca["key"] != "ca.crt" || e.TLSConfig.ServerName != fullname+"."+namespace+".svc" {
		t.Errorf("ServiceMonitor tlsConfig %v, want ca.crt of %s %s", e.TLSConfig, caFrom, name)
	}
}

// TestTLSFromSecret: an existing Secret served, its CA (given) in a
// ConfigMap of the chart for specd's APIServices and the ServiceMonitor.
func TestTLSFromSecret(t *testing.T) {
	objs := render(t, aggregatedValues(t, map[string]any{
		"tls":     map[string]any{"source": "secret", "secret": map[string]any{"name": "specd-serving"}, "caBundle": testCA},
		"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true, "authorization": map[string]any{"type": "Bearer", "credentials": map[string]any{"name": "t", "key": "token"}}}},
	}))
	pod := statefulPod(t, objs)
	f := flags(t, container(t, pod))
	if s := volume(t, pod, "tls").Secret; s == nil || s.SecretName != "specd-serving" {
		t.Errorf("tls volume %+v, want Secret specd-serving", s)
	}
	checkServingFiles(t, pod, f)
	var cm corev1.ConfigMap
	objs.get(t, "ConfigMap", fullname+"-ca", &cm)
	if cm.Data["ca.crt"] != testCA {
		t.Errorf("CA ConfigMap %v, want tls.caBundle", cm.Data)
	}
	if dir := mountPath(container(t, pod), "ca"); dir == "" || f["apiservice-ca-file"] != dir+"/ca.crt" {
		t.Errorf("--apiservice-ca-file=%q (ca mounted at %q), want the CA ConfigMap's ca.crt", f["apiservice-ca-file"], dir)
	}
	checkServiceMonitor(t, objs, "configMap", fullname+"-ca")
}

// TestRefused: values that cannot work fail the rendering with a message
// naming the values to change.
func TestRefused(t *testing.T) {
	tests := map[string]struct {
		values map[string]any
		want   string
	}{
		"unknown mode": {map[string]any{"mode": "clustered"}, `mode "clustered"`},
		"replicated without etcd": {map[string]any{"mode": "replicated", "tls": map[string]any{"source": "certManager"}},
			"mode replicated needs etcd.servers"},
		"standalone with etcd": {map[string]any{"etcd": map[string]any{"servers": []any{"https://etcd:2379"}}},
			"mode standalone runs the embedded etcd"},
		"generated TLS on replicas": {map[string]any{"mode": "replicated", "etcd": map[string]any{"servers": []any{"https://etcd:2379"}}},
			"tls.source specd generates a CA per data directory"},
		"secret without a name": {map[string]any{"tls": map[string]any{"source": "secret"}}, "tls.secret.name"},
		"aggregated secret without its CA": {map[string]any{"mode": "aggregated", "tls": map[string]any{"source": "secret", "secret": map[string]any{"name": "s"}}},
			"tls.caBundle"},
		"rendered APIServices of a generated CA": {map[string]any{"mode": "aggregated", "aggregated": map[string]any{"registerAPIServices": false, "groups": shopGroups}},
			"cannot know with tls.source specd"},
		"rendered APIServices of no group": {map[string]any{"mode": "aggregated", "tls": map[string]any{"source": "certManager"}, "aggregated": map[string]any{"registerAPIServices": false}},
			"needs aggregated.groups"},
		"two sources of schemas": {map[string]any{"schemas": map[string]any{"configMap": "a", "volume": map[string]any{"emptyDir": map[string]any{}}}},
			"give one of files, configMap and volume"},
		"a data directory out of the volume": {map[string]any{"persistence": map[string]any{"dataDir": "../etc"}}, `persistence.dataDir "../etc"`},
		"backup nowhere":                     {map[string]any{"backup": map[string]any{"enabled": true}}, "backup.volume"},
		"ServiceMonitor of an unknown CA":    {map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}}, "metrics.serviceMonitor.tlsConfig"},
		"ServiceMonitor without credentials": {map[string]any{"tls": map[string]any{"source": "certManager"}, "metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}},
			"metrics.serviceMonitor in mode standalone needs metrics.serviceMonitor.authorization"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := template(t, tc.values)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("helm template: %v, want an error saying %q\n%s", err, tc.want, out)
			}
		})
	}
}
