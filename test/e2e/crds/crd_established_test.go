package crds

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// establishRounds is how many CRDs TestCRDServedOnlyEstablished creates:
// a resource served before its CRD is Established is served for a few
// milliseconds only, which one round's requests may miss.
const establishRounds = 5

// TestCRDServedOnlyEstablished: specd serves a CRD's resource only once
// the CRD is Established, as kube-apiserver's discovery lists only
// Established CRDs; and a client that sees the condition in a watch
// finds the resource, in discovery and at its path, at once. For each
// CRD, requests to the resource run from before its create: the first
// list answered has a resourceVersion (a consistent list's, storage's
// revision when it was read) no older than the write of Established.
func TestCRDServedOnlyEstablished(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	crds := harness.DynamicClient(t, s).Resource(crdResource)
	for i := range establishRounds {
		group := fmt.Sprintf("order%d.crdapi.example.com", i)
		var poll poller
		ctx, stop := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { poll.run(ctx, t, s, "/apis/"+group+"/v1/things") })
		established := createAndAwaitEstablished(t, crds, group)
		// At once: the watch said Established, nothing else in between.
		assertServed(t, s, group)
		stop()
		wg.Wait()
		if poll.notFoundAfter {
			t.Errorf("%s: the resource answered 404 after it had answered 200", group)
		}
		if poll.first != 0 && poll.first < established {
			t.Errorf("%s: the resource was served at revision %d, before its CRD was Established (revision %d)", group, poll.first, established)
		}
	}
}

// poller lists a resource as fast as it can, and keeps the revision of
// the first list answered.
type poller struct {
	first         int64
	notFoundAfter bool
}

func (p *poller) run(ctx context.Context, t *testing.T, s *harness.Specd, path string) {
	for ctx.Err() == nil {
		r, err := testhttp.Send(ctx, s.Client, testhttp.Request{URL: s.URL + path})
		switch {
		case err != nil:
		case r.Code == 200 && p.first == 0:
			p.first = listRevision(t, r.Body)
		case r.Code == 404 && p.first != 0:
			p.notFoundAfter = true
		}
	}
}

func listRevision(t *testing.T, body string) int64 {
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Errorf("a list of the resource: %v\n%s", err, body)
		return 0
	}
	n, err := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		t.Errorf("a list's resourceVersion: %v", err)
	}
	return n
}

// createAndAwaitEstablished creates the CRD things.<group> and returns
// the resourceVersion of the write that made it Established, read from a
// watch that started before the create.
func createAndAwaitEstablished(t *testing.T, crds dynamic.NamespaceableResourceInterface, group string) int64 {
	t.Helper()
	name := "things." + group
	w, err := crds.Watch(t.Context(), metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := crds.Create(t.Context(), thingsCRD(t, group), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx := harness.Context(t, crdTimeout)
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not Established within %s", name, crdTimeout)
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("%s: the watch ended", name)
			}
			if ev.Type == watch.Error {
				t.Fatalf("%s: watch error: %v", name, ev.Object)
			}
			u := ev.Object.(*unstructured.Unstructured)
			if isEstablished(u) {
				rv, err := strconv.ParseInt(u.GetResourceVersion(), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return rv
			}
		}
	}
}

// assertServed checks that discovery lists the things of group and that
// an object of it can be created.
func assertServed(t *testing.T, s *harness.Specd, group string) {
	t.Helper()
	r := testhttp.Do(t, s.Client, testhttp.Request{URL: s.URL + "/apis/" + group + "/v1"})
	if r.Code != 200 || !strings.Contains(r.Body, `"name":"things"`) {
		t.Errorf("%s: discovery right after Established: %d %s", group, r.Code, r.Body)
	}
	r = testhttp.Do(t, s.Client, testhttp.Request{Method: "POST", URL: s.URL + "/apis/" + group + "/v1/things",
		ContentType: "application/json", Body: `{"apiVersion":"` + group + `/v1","kind":"Thing","metadata":{"name":"a"}}`})
	if r.Code != 201 {
		t.Errorf("%s: a create right after Established: %d %s", group, r.Code, r.Body)
	}
}

func thingsCRD(t *testing.T, group string) *unstructured.Unstructured {
	t.Helper()
	doc := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.` + group + `
spec:
  group: ` + group + `
  scope: Cluster
  names: {plural: things, kind: Thing}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}
