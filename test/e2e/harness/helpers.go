package harness

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/specd-io/specd/internal/testhttp"
)

// FindAPIResource finds the resource name of groupVersion in lists, or
// returns nil.
func FindAPIResource(lists []*metav1.APIResourceList, groupVersion, name string) *metav1.APIResource {
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

// ItemKeys returns namespace/name (or name) of every item, in list order.
func ItemKeys(list *unstructured.UnstructuredList) []string {
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

// StatusOf is the Kubernetes Status of a client-go error, or a zero one.
func StatusOf(err error) metav1.Status {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status()
	}
	return metav1.Status{}
}

// CheckStatusError checks err is the Kubernetes Status error described; an
// empty message is not checked, and details' UID and causes are not.
func CheckStatusError(t *testing.T, what string, err error, is func(error) bool, code int32,
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
	s := StatusOf(err)
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

// CauseOn is the cause on field of a Status error, if it has one.
func CauseOn(err error, field string) (metav1.StatusCause, bool) {
	if d := StatusOf(err).Details; d != nil {
		for _, c := range d.Causes {
			if c.Field == field {
				return c, true
			}
		}
	}
	return metav1.StatusCause{}, false
}

// Path walks nested maps; nil when a step is missing.
func Path(obj map[string]any, keys ...string) any {
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

// DecodeJSON decodes a JSON object, failing the test if s is not one.
func DecodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	return obj
}

// CreateNamespaces creates each namespace on s with the typed client, as
// a user must before writing into it: specd, as kube-apiserver, answers
// 404 for a write into a namespace that does not exist.
func CreateNamespaces(t testing.TB, s *Specd, names ...string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(RestConfig(s))
	if err != nil {
		t.Fatal(err)
	}
	ctx := Context(t, time.Minute)
	for _, name := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create namespace %s: %v", name, err)
		}
	}
}

// ContainsField reports whether a whitespace-separated word of out is w.
func ContainsField(out, w string) bool {
	for _, f := range strings.Fields(out) {
		if f == w {
			return true
		}
	}
	return false
}

// FileExists reports whether p names a file or directory.
func FileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// CheckStatus checks resp is a Kubernetes Status for a failure with code
// and reason, and returns it.
func CheckStatus(t *testing.T, resp testhttp.Result, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	if resp.Code != code {
		t.Errorf("HTTP %d, want %d\n%s", resp.Code, code, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var status metav1.Status
	if err := json.Unmarshal([]byte(resp.Body), &status); err != nil {
		t.Fatalf("body is not a Status: %v\n%s", err, resp.Body)
	}
	if status.Kind != "Status" || status.APIVersion != "v1" || status.Status != metav1.StatusFailure ||
		status.Code != int32(code) || status.Reason != reason || status.Message == "" {
		t.Errorf("status %+v, want kind Status, apiVersion v1, status Failure, code %d, reason %s and a message",
			status, code, reason)
	}
	return status
}

// MetricValue is the value of one series of specd's /metrics, as written
// there ("" when absent).
func MetricValue(t *testing.T, client *http.Client, s *Specd, series string) string {
	t.Helper()
	r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/metrics"})
	sc := bufio.NewScanner(strings.NewReader(r.Body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return v
		}
	}
	return ""
}
