package e2e

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
)

func findAPIResource(lists []*metav1.APIResourceList, groupVersion, name string) *metav1.APIResource {
	for _, l := range lists {
		if l.GroupVersion != groupVersion {
			continue
		}
		for i := range l.APIResources {
			if l.APIResources[i].Name == name {
				return &l.APIResources[i]
			}
		}
	}
	return nil
}

// itemKeys returns namespace/name (or name) of every item, in list order.
func itemKeys(list *unstructured.UnstructuredList) []string {
	var keys []string
	for _, item := range list.Items {
		key := item.GetName()
		if item.GetNamespace() != "" {
			key = item.GetNamespace() + "/" + key
		}
		keys = append(keys, key)
	}
	return keys
}

func statusOf(err error) metav1.Status {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status()
	}
	return metav1.Status{}
}

// checkStatusError checks err is the Kubernetes Status error described; an
// empty message is not checked, and details' UID and causes are not.
func checkStatusError(t *testing.T, what string, err error, is func(error) bool, code int32,
	reason metav1.StatusReason, details *metav1.StatusDetails, message string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if !is(err) {
		t.Errorf("%s: %v (%T), want reason %s", what, err, err, reason)
		return
	}
	s := statusOf(err)
	if s.Code != code || s.Reason != reason || s.Status != metav1.StatusFailure {
		t.Errorf("%s: status %s code %d reason %s, want Failure %d %s", what, s.Status, s.Code, s.Reason, code, reason)
	}
	if message != "" && s.Message != message {
		t.Errorf("%s: message %q, want %q", what, s.Message, message)
	}
	if s.Details == nil {
		t.Errorf("%s: no details, want %+v", what, *details)
		return
	}
	if s.Details.Name != details.Name || s.Details.Group != details.Group || s.Details.Kind != details.Kind {
		t.Errorf("%s: details name %q group %q kind %q, want %q %q %q", what,
			s.Details.Name, s.Details.Group, s.Details.Kind, details.Name, details.Group, details.Kind)
	}
}

func causeOn(err error, field string) (metav1.StatusCause, bool) {
	if d := statusOf(err).Details; d != nil {
		for _, c := range d.Causes {
			if c.Field == field {
				return c, true
			}
		}
	}
	return metav1.StatusCause{}, false
}

// path walks nested maps; nil when a step is missing.
func path(obj map[string]any, keys ...string) any {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	return obj
}

// createNamespaces creates each namespace on s with the typed client, as
// a user must before writing into it: specd, as kube-apiserver, answers
// 404 for a write into a namespace that does not exist.
func createNamespaces(t testing.TB, s *specd, names ...string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(restConfig(s))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t, time.Minute)
	for _, name := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create namespace %s: %v", name, err)
		}
	}
}
