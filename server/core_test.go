package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
)

// TestCoreDiscovery: /api lists v1, /api/v1 the core resources with kube's
// names, and client-go's discovery maps the core kinds, while /apis does
// not list the core group.
func TestCoreDiscovery(t *testing.T) {
	url := startSpecdWithBuiltins(t)
	if got := getBody(t, url+"/api", ""); !strings.Contains(got, `"versions":["v1"]`) {
		t.Errorf("/api: %s", got)
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(getBody(t, url+"/api/v1", "")), &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		byName[r.Name] = r
	}
	want := map[string]string{"namespaces": "ns", "configmaps": "cm", "events": "ev", "secrets": ""}
	for name, short := range want {
		r, ok := byName[name]
		if !ok || (short != "" && (len(r.ShortNames) != 1 || r.ShortNames[0] != short)) || r.SingularName != strings.TrimSuffix(name, "s") {
			t.Errorf("%s: %+v, want short name %q", name, r, short)
		}
	}
	// kube-apiserver's own values (its discovery of /api/v1).
	for name, hash := range map[string]string{"configmaps": "qFsyl6wFWjQ=", "events": "r2yiGXH7wu8="} {
		if got := byName[name].StorageVersionHash; got != hash {
			t.Errorf("%s: storageVersionHash %q, want kube's %q", name, got, hash)
		}
	}
	if list.GroupVersion != "v1" || byName["namespaces"].Namespaced || !byName["configmaps"].Namespaced {
		t.Errorf("groupVersion %q, namespaces namespaced %v", list.GroupVersion, byName["namespaces"].Namespaced)
	}
	agg := getBody(t, url+"/api", kubectlDiscoveryAccept)
	if !strings.Contains(agg, `"version":"v1"`) || !strings.Contains(agg, `"resource":"configmaps"`) || strings.Contains(agg, "coordination.k8s.io") {
		t.Errorf("aggregated /api: %s", agg)
	}
	if apis := getBody(t, url+"/apis", ""); strings.Contains(apis, `"name":""`) || !strings.Contains(apis, "coordination.k8s.io") {
		t.Errorf("/apis: %s", apis)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: url})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := restmapper.NewDiscoveryRESTMapper(groups).RESTMapping(corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind(), "v1")
	if err != nil || m.Resource.Resource != "configmaps" || m.Resource.Group != "" {
		t.Errorf("REST mapping of ConfigMap: %+v, %v", m, err)
	}
}

func getBody(t *testing.T, url, accept string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v: %s", url, resp.StatusCode, err, b)
	}
	return string(b)
}

// typedClientOf is client-go's clientset, sending protobuf bodies as
// its typed clients do by default in kube's own components.
func typedClientOf(t *testing.T, url string) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: url, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestCoreCRUD creates, reads, updates, watches and deletes config maps
// under /api/v1 with the typed clientset (protobuf bodies).
func TestCoreCRUD(t *testing.T) {
	cms := typedClientOf(t, startSpecdWithBuiltins(t)).CoreV1().ConfigMaps("default")
	ctx := t.Context()
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if cm.UID == "" || cm.Data["a"] != "b" {
		t.Errorf("created %+v", cm)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Errorf("watch event %s, want ADDED", ev.Type)
	}
	cm.Data["c"] = "d"
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil || cm.Data["c"] != "d" {
		t.Fatalf("update: %+v %v", cm, err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "x" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := cms.Delete(ctx, "x", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := cms.Get(ctx, "x", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
}

// TestCoreKinds writes each built-in kind as kube's clients write it: a
// Secret, a Namespace (cluster scope), a Lease with client-go's MicroTime,
// and an Event found by the field selector kubectl describe sends.
func TestCoreKinds(t *testing.T) {
	cs := typedClientOf(t, startSpecdWithBuiltins(t))
	ctx := t.Context()
	s, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"k": []byte("v")}}, metav1.CreateOptions{})
	if err != nil || string(s.Data["k"]) != "v" || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret: %+v %v", s, err)
	}
	if ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}); err != nil || ns.Namespace != "" {
		t.Errorf("namespace: %+v %v", ns, err)
	}
	renew := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	lease, err := cs.CoordinationV1().Leases("default").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "leader"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("me"), LeaseDurationSeconds: ptr.To[int32](15), RenewTime: &renew}}, metav1.CreateOptions{})
	if err != nil || !lease.Spec.RenewTime.Equal(&renew) {
		t.Errorf("lease: %+v %v, want renewTime %s", lease, err, renew.Format(metav1.RFC3339Micro))
	}
	ref := corev1.ObjectReference{Kind: "Lease", Namespace: "default", Name: "leader", UID: lease.UID, APIVersion: "coordination.k8s.io/v1"}
	for _, name := range []string{"about-leader", "about-other"} {
		e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name}, InvolvedObject: ref, Reason: "Elected", Type: corev1.EventTypeNormal,
			FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1, Source: corev1.EventSource{Component: "test"}}
		if name == "about-other" {
			e.InvolvedObject.Name = "other"
		}
		if _, err := cs.CoreV1().Events("default").Create(ctx, e, metav1.CreateOptions{}); err != nil {
			t.Fatalf("event %s: %v", name, err)
		}
	}
	sel := "involvedObject.name=leader,involvedObject.namespace=default,involvedObject.kind=Lease,involvedObject.uid=" + string(lease.UID)
	evs, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil || len(evs.Items) != 1 || evs.Items[0].Name != "about-leader" {
		t.Errorf("events by %s: %+v %v", sel, evs, err)
	}
}

// TestCoreOpenAPI: the core group's OpenAPI v3 document is at
// /openapi/v3/api/v1 with kube's paths and schema names; v2 has them too.
func TestCoreOpenAPI(t *testing.T) {
	url := startSpecdWithBuiltins(t)
	if idx := getBody(t, url+"/openapi/v3", ""); !strings.Contains(idx, `"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=`) {
		t.Errorf("index: %s", idx)
	}
	for _, path := range []string{"/openapi/v3/api/v1", "/openapi/v2"} {
		doc := getBody(t, url+path, "")
		for _, want := range []string{`"/api/v1/namespaces/{namespace}/configmaps/{name}"`, `"/api/v1/namespaces"`, `"/api/v1/events"`,
			`"io.k8s.api.core.v1.ConfigMap"`, `"operationId":"listCoreV1NamespacedConfigMap"`} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s has no %s", path, want)
			}
		}
	}
}
