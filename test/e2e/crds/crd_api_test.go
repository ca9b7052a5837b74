package crds

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
)

// crdTimeout bounds the waits for the CRD controllers.
const crdTimeout = 20 * time.Second

// widgetsCRD is a CRD of crdapi.example.com; extra is spliced into its
// version's spec properties, annotations into its metadata.
func widgetsCRD(extra, annotations string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.crdapi.example.com
` + annotations + `spec:
  group: crdapi.example.com
  scope: Namespaced
  names:
    plural: widgets
    kind: Widget
    shortNames: [wdg]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
` + extra
}

const colorField = `              color:
                type: string
`

// TestCRDAPIKubectl is the proof: kubectl applies a CRD, which is
// served and Established at once; objects are created; a compatible
// update is applied, an incompatible one refused naming the breaking
// change (and let through by the allow annotation); deleting the CRD
// deletes its objects.
func TestCRDAPIKubectl(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(colorField, "")))
	k.OK(t, "wait", "--for=condition=Established", "crd/widgets.crdapi.example.com", "--timeout=10s")
	got := k.OK(t, "get", "crd", "widgets.crdapi.example.com", "-o",
		`jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason};{end} {.status.storedVersions} {.status.acceptedNames.listKind}`)
	if want := `NamesAccepted=True/NoConflicts;Established=True/InitialNamesAccepted; ["v1"] WidgetList`; got != want {
		t.Errorf("status: %q, want %q", got, want)
	}
	// kubectl's discovery of the resource carries kube's hash of the
	// storage version (crdapi.example.com/v1/Widget).
	if got := k.OK(t, "get", "--raw", "/apis/crdapi.example.com/v1"); !strings.Contains(got, `"kind":"Widget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["wdg"],"storageVersionHash":"slE83WDENDU="}`) {
		t.Errorf("discovery of crdapi.example.com/v1 has no storageVersionHash:\n%s", got)
	}
	if got := k.OK(t, "get", "crds"); !harness.ContainsField(got, "widgets.crdapi.example.com") {
		t.Errorf("kubectl get crds:\n%s", got)
	}
	for _, name := range []string{"a", "b"} {
		k.OK(t, "apply", "-f", k.Manifest(t, name+".yaml", "apiVersion: crdapi.example.com/v1\nkind: Widget\nmetadata:\n  name: "+name+"\nspec:\n  size: 3\n  color: red\n"))
	}
	if got := k.OK(t, "get", "wdg", "-o", "name"); got != "widget.crdapi.example.com/a\nwidget.crdapi.example.com/b\n" {
		t.Errorf("kubectl get wdg: %q", got)
	}
	weight := colorField + "              weight:\n                type: integer\n"
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(weight, "")))
	harness.Eventually(t, "the weight field served", func() bool {
		r := k.Run(t, "apply", "-f", k.Manifest(t, "c.yaml", "apiVersion: crdapi.example.com/v1\nkind: Widget\nmetadata:\n  name: c\nspec:\n  weight: 7\n"))
		return r.Code == 0 && strings.TrimSpace(k.OK(t, "get", "widget", "c", "-o", "jsonpath={.spec.weight}")) == "7"
	})
	stderr := k.Fail(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD("              weight:\n                type: integer\n", "")))
	for _, want := range []string{`CustomResourceDefinition "widgets.crdapi.example.com" is invalid`,
		"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color: Forbidden: breaking change: field .spec.color is removed",
		`specd.io/allow-breaking: "true"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the breaking update's error has no %q:\n%s", want, stderr)
		}
	}
	k.OK(t, "delete", "crd", "widgets.crdapi.example.com", "--timeout=20s")
	k.Fail(t, "get", "crd", "widgets.crdapi.example.com")
	// The objects went first: the same CRD again serves none.
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(colorField, "")))
	k.OK(t, "wait", "--for=condition=Established", "crd/widgets.crdapi.example.com", "--timeout=10s")
	harness.Eventually(t, "widgets served again", func() bool { return k.Run(t, "get", "widgets").Code == 0 })
	if got := k.OK(t, "get", "widgets", "-A", "-o", "name"); got != "" {
		t.Errorf("widgets after the CRD was deleted and created again: %q", got)
	}
}

// TestCRDAPIAllowBreaking: the allow annotation lets a breaking update of
// a CRD through the compatibility gate.
func TestCRDAPIAllowBreaking(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(colorField, "")))
	k.OK(t, "wait", "--for=condition=Established", "crd/widgets.crdapi.example.com", "--timeout=10s")
	allow := "  annotations:\n    specd.io/allow-breaking: \"true\"\n"
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD("", allow)))
	harness.Eventually(t, "color no longer served", func() bool {
		r := k.Run(t, "apply", "-f", k.Manifest(t, "w.yaml", "apiVersion: crdapi.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: red\n"))
		return r.Code != 0 && strings.Contains(r.Stderr, `unknown field "spec.color"`)
	})
}

// TestCRDAPIDeletionWaitsForObjects: a CRD being deleted is Terminating
// (InstanceDeletionInProgress) with the cleanup finalizer while one of
// its objects is held by a finalizer, and goes once that one does.
func TestCRDAPIDeletionWaitsForObjects(t *testing.T) {
	t.Parallel()
	_, k := deleteCRDWithHeldObject(t)
	harness.Eventually(t, "the CRD terminating while its object is held", func() bool {
		got := k.Run(t, "get", "crd", "widgets.crdapi.example.com", "-o",
			`jsonpath={.metadata.finalizers} {.status.conditions[?(@.type=="Terminating")].reason}`).Stdout
		return got == `["customresourcecleanup.apiextensions.k8s.io"] InstanceDeletionInProgress`
	})
	if got := k.OK(t, "get", "widget", "held", "-o", "jsonpath={.metadata.deletionTimestamp}"); got == "" {
		t.Error("the held widget is not being deleted")
	}
	// As kube-apiserver: no new object while the CRD terminates; the
	// objects left may still be updated.
	late := k.Manifest(t, "late.yaml", "apiVersion: crdapi.example.com/v1\nkind: Widget\nmetadata:\n  name: late\n")
	stderr := k.Fail(t, "create", "-f", late)
	if want := `Error from server (Forbidden): error when creating "` + late + `": widgets.crdapi.example.com "late" is forbidden: create not allowed while custom resource definition is terminating`; strings.TrimSpace(stderr) != want {
		t.Errorf("create while terminating:\n%s\nwant\n%s", stderr, want)
	}
	// Discovery lists only the verbs kube-apiserver's does meanwhile.
	harness.Eventually(t, "discovery without create, update and patch", func() bool {
		got := k.OK(t, "get", "--raw", "/apis/crdapi.example.com/v1")
		return strings.Contains(got, `"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["delete","deletecollection","get","list","watch"]`)
	})
	k.OK(t, "label", "widget", "held", "updated=yes")
	k.OK(t, "patch", "widget", "held", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	harness.Eventually(t, "the CRD gone", func() bool { return k.Run(t, "get", "crd", "widgets.crdapi.example.com").Code != 0 })
}

// deleteCRDWithHeldObject starts a specd, applies the widgets CRD,
// creates a widget that a finalizer holds, and deletes the CRD.
func deleteCRDWithHeldObject(t *testing.T) (*harness.Specd, *harness.Kubectl) {
	t.Helper()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(colorField, "")))
	k.OK(t, "wait", "--for=condition=Established", "crd/widgets.crdapi.example.com", "--timeout=10s")
	k.OK(t, "apply", "-f", k.Manifest(t, "held.yaml", "apiVersion: crdapi.example.com/v1\nkind: Widget\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n"))
	k.OK(t, "delete", "crd", "widgets.crdapi.example.com", "--wait=false")
	return s, k
}

// TestCRDAPIDeletionCheck: a CRD whose object a finalizer holds for more
// than a minute says so as kube's finalizer does, with the Terminating
// reason InstanceDeletionCheck, and is deleted once the object goes. It
// takes a minute (kube's finalizer polls for one), in parallel with the
// rest of the suite.
func TestCRDAPIDeletionCheck(t *testing.T) {
	const deletionCheckAfter = time.Minute
	t.Parallel()
	s, k := deleteCRDWithHeldObject(t)
	// The condition lasts until the controller's next try, which sets
	// InstanceDeletionInProgress again (as kube's does): watch for it.
	want := "True/InstanceDeletionCheck/could not confirm zero CustomResources remaining: context deadline exceeded"
	if got := awaitTerminating(t, s, "widgets.crdapi.example.com", want, deletionCheckAfter+30*time.Second); got != want {
		t.Fatalf("Terminating condition %q, want %q", got, want)
	}
	k.OK(t, "patch", "widget", "held", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	harness.Eventually(t, "the CRD gone", func() bool { return k.Run(t, "get", "crd", "widgets.crdapi.example.com").Code != 0 })
}

// awaitTerminating watches the CRD name until its Terminating condition
// reads want (status/reason/message) or timeout passes, and returns the
// last one seen.
func awaitTerminating(t *testing.T, s *harness.Specd, name, want string, timeout time.Duration) string {
	t.Helper()
	ctx := harness.Context(t, timeout)
	crds := harness.DynamicClient(t, s).Resource(crdGVR)
	last, rv := "", ""
	for last != want && ctx.Err() == nil {
		// The server ends a watch now and then; go on from where it was.
		w, err := crds.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: rv})
		if err != nil {
			t.Fatal(err)
		}
		for ev := range w.ResultChan() {
			obj, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			rv = obj.GetResourceVersion()
			if last = terminatingCondition(obj); last == want {
				break
			}
		}
		w.Stop()
	}
	return last
}

// terminatingCondition is a CRD's Terminating condition as
// status/reason/message.
func terminatingCondition(obj *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Terminating" {
			return fmt.Sprintf("%v/%v/%v", m["status"], m["reason"], m["message"])
		}
	}
	return ""
}

// TestCRDAPINameConflict: a CRD whose short name another CRD of its group
// holds is stored but not served, with kube's NamesAccepted reason.
func TestCRDAPINameConflict(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(colorField, "")))
	k.OK(t, "wait", "--for=condition=Established", "crd/widgets.crdapi.example.com", "--timeout=10s")
	gadgets := strings.NewReplacer("widgets", "gadgets", "Widget", "Gadget").Replace(widgetsCRD("", ""))
	k.OK(t, "apply", "-f", k.Manifest(t, "gadgets.yaml", gadgets))
	want := `NamesAccepted=False/ShortNamesConflict/"wdg" is already in use;Established=False/NotAccepted/not all names are accepted;`
	harness.Eventually(t, "NamesAccepted False", func() bool {
		got := k.OK(t, "get", "crd", "gadgets.crdapi.example.com", "-o",
			`jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}/{.message};{end}`)
		return got == want
	})
	if r := k.Run(t, "get", "gadgets.crdapi.example.com"); r.Code == 0 {
		t.Errorf("gadgets are served though their names were not accepted:\n%s", r)
	}
}

// TestCRDAPIFileConflict: a CRD may not take a resource that a schema
// file declares; the refusal names the file.
func TestCRDAPIFileConflict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(testschemas.Tools), 0o644); err != nil {
		t.Fatal(err)
	}
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	k := harness.NewKubectl(t, s)
	hammers := strings.NewReplacer("widgets.crdapi.example.com", "hammers.tools.example.com", "crdapi.example.com", "tools.example.com",
		"widgets", "hammers", "Widget", "Hammer").Replace(widgetsCRD("", ""))
	stderr := k.Fail(t, "apply", "-f", k.Manifest(t, "hammers.yaml", hammers))
	want := "spec.names.plural: Invalid value: \"hammers\": resource hammers.tools.example.com is already declared by schema file " + filepath.Join(dir, "tools.yaml")
	if !strings.Contains(stderr, want) {
		t.Errorf("kubectl apply of a CRD a file declares:\n%s\nwant %q", stderr, want)
	}
}

// TestCRDAPIFileAfterCRD: a schema file that declares a resource a CRD
// object already declares fails the reload, naming both, and the CRD's
// resource stays served.
func TestCRDAPIFileAfterCRD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	k := harness.NewKubectl(t, s)
	hammers := strings.NewReplacer("widgets.crdapi.example.com", "hammers.tools.example.com", "crdapi.example.com", "tools.example.com",
		"widgets", "hammers", "Widget", "Hammer").Replace(widgetsCRD("", ""))
	k.OK(t, "apply", "-f", k.Manifest(t, "hammers.yaml", hammers))
	k.OK(t, "wait", "--for=condition=Established", "crd/hammers.tools.example.com", "--timeout=10s")
	file := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(file, []byte(testschemas.Tools), 0o644); err != nil {
		t.Fatal(err)
	}
	var readyz string
	harness.Eventually(t, "the reload's failure in /readyz?verbose", func() bool {
		r, err := testhttp.Send(t.Context(), s.Client, testhttp.Request{URL: s.URL + "/readyz?verbose"})
		readyz = r.Body
		return err == nil && strings.Contains(readyz, "failed")
	})
	for _, want := range []string{file, "customresourcedefinitions/hammers.tools.example.com"} {
		if !strings.Contains(readyz, want) {
			t.Errorf("/readyz?verbose does not name %s:\n%s", want, readyz)
		}
	}
	k.OK(t, "get", "hammers.tools.example.com")
}

// TestCRDAPIRestart: a specd that restarts on the same data is ready only
// once the stored CRDs are served, so their objects answer at once.
func TestCRDAPIRestart(t *testing.T) {
	t.Parallel()
	dir, data := t.TempDir(), t.TempDir()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, DataDir: data})
	k := harness.NewKubectl(t, s)
	k.OK(t, "apply", "-f", k.Manifest(t, "crd.yaml", widgetsCRD(colorField, "")))
	k.OK(t, "wait", "--for=condition=Established", "crd/widgets.crdapi.example.com", "--timeout=10s")
	k.OK(t, "apply", "-f", k.Manifest(t, "a.yaml", "apiVersion: crdapi.example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  color: red\n"))
	s.Stop(t)
	s = harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, DataDir: data, NoWait: true})
	if err := s.WaitReady(harness.ReadyTimeout); err != nil {
		s.Kill()
		t.Fatal(err)
	}
	// At once, without kubectl's discovery in between.
	r := testhttp.Do(t, s.Client, testhttp.Request{URL: s.URL + "/apis/crdapi.example.com/v1/namespaces/default/widgets/a"})
	if r.Code != 200 || !strings.Contains(r.Body, `"color":"red"`) {
		t.Errorf("the widget as soon as specd is ready again: %d %s", r.Code, r.Body)
	}
}
