package crds

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/test/e2e/harness"
)

// corpusProject is one project of the CRD corpus: its folder and CRDs.
type corpusProject struct {
	name, dir string
	crds      []*crdcorpus.CRD
}

// corpusProjects reads every project of testdata/crds.
func corpusProjects(t *testing.T) []corpusProject {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds"))
	if err != nil || len(dirs) != 11 {
		t.Fatalf("want 11 projects in the CRD corpus, have %d (%v)", len(dirs), err)
	}
	out := make([]corpusProject, 0, len(dirs))
	for _, d := range dirs {
		p := filepath.Dir(d)
		out = append(out, corpusProject{name: filepath.Base(p), dir: p, crds: crdcorpus.Read(t, d)})
	}
	return out
}

// TestCRDCorpusAPI is the proof through the API: every CRD of the
// corpus, applied with `kubectl apply --server-side` one project at a
// time into a specd with no schemas, is Established and served with its
// schemas as published; every published example is accepted; every
// invalid or rejected one is refused with kube's Status and field paths.
// Server-side, as the projects document: a client-side apply of a CRD
// over 256 KiB is refused by kube-apiserver too, for its
// last-applied-configuration annotation (checked below).
func TestCRDCorpusAPI(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: t.TempDir()})
	k := harness.NewKubectl(t, s)
	// A project's CRDs are created one after another, each judged with
	// all the others (engine/crd's write check): kyverno's 22 large ones
	// can take longer than one kubectl run is usually given on a loaded
	// machine.
	k.Timeout = 2 * time.Minute
	projects := corpusProjects(t)
	for _, p := range projects {
		k.OK(t, "apply", "--server-side", "-f", corpusCRDDir(t, k, p))
	}
	k.OK(t, "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
	dyn := harness.DynamicClient(t, s)
	for _, p := range projects {
		checkServedCRDs(t, dyn, p)
		checkServedAsKube(t, s, p)
	}
	checkAllCorpusObjects(t, s, dyn, projects)
	t.Run("client-side apply of a large CRD", func(t *testing.T) {
		big := filepath.Join(crdcorpus.Dir(t), "kyverno", "crds", "kyverno.io_policies.yaml")
		stderr := k.Fail(t, "apply", "-f", big)
		if want := "metadata.annotations: Too long: may not be more than 262144 bytes"; !strings.Contains(stderr, want) {
			t.Errorf("kubectl apply (client-side) of %s: want %q in\n%s", big, want, stderr)
		}
	})
}

// TestCRDCorpusFiles is the proof for CRD files: every project's
// CRD files, as published, in one --schemas directory (with specd's
// conversion rules in a side file for the CRDs that name a webhook, as
// docs/crds.md says) are served, and the examples are judged through the
// API as kube-apiserver judges them.
func TestCRDCorpusFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	projects := corpusProjects(t)
	for _, p := range projects {
		if err := os.CopyFS(filepath.Join(dir, p.name), os.DirFS(filepath.Join(p.dir, "crds"))); err != nil {
			t.Fatal(err)
		}
		if rules := conversionRulesFile(p.crds); rules != "" {
			harness.WriteFile(t, filepath.Join(dir, p.name), "specd-conversion.yaml", rules)
		}
	}
	// Loading 135 CRD files takes specd most of ReadyTimeout on a loaded
	// machine (docs/performance.md, "CRD files").
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir, NoWait: true})
	if err := s.WaitReady(2 * time.Minute); err != nil {
		s.Kill()
		t.Fatal(err)
	}
	dyn := harness.DynamicClient(t, s)
	for _, p := range projects {
		checkListed(t, dyn, p)
		checkServedAsKube(t, s, p)
	}
	checkAllCorpusObjects(t, s, dyn, projects)
}

// conversionRulesFile is a side file of specd conversion rules for every
// CRD of crds that names a conversion webhook: empty rules, so each
// version converts field for field; "" when none does.
func conversionRulesFile(crds []*crdcorpus.CRD) string {
	var docs []string
	for _, c := range crds {
		if c.Spec.Conversion == nil || c.Spec.Conversion.Strategy != "Webhook" {
			continue
		}
		doc := fmt.Sprintf("apiVersion: specd.io/v1alpha1\nkind: ConversionRules\nmetadata:\n  name: %s.%s\nspec:\n  versions:\n",
			c.Spec.Names.Plural, c.Spec.Group)
		for _, v := range c.Spec.Versions {
			if !v.Storage {
				doc += fmt.Sprintf("    %s: []\n", v.Name)
			}
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return ""
	}
	return "---\n" + strings.Join(docs, "---\n")
}

// checkAllCorpusObjects creates the namespaces the examples name, then
// every example, invalid and rejected object of every project.
func checkAllCorpusObjects(t *testing.T, s *harness.Specd, dyn dynamic.Interface, projects []corpusProject) {
	t.Helper()
	createExampleNamespaces(t, s, projects)
	created, refused := 0, 0
	for _, p := range projects {
		c, r := checkCorpusObjects(t, dyn, p)
		created, refused = created+c, refused+r
	}
	// The counts of INDEX.md: 185 example objects, 2 invalid, 7 rejected.
	if created != 185 || refused != 9 {
		t.Errorf("created %d examples and sent %d invalid or rejected ones, the corpus has 185 and 9", created, refused)
	}
}

// corpusCRDDir is the folder to apply for project p: its crds folder as
// published, or, when a CRD names a conversion webhook, a copy whose
// webhook CRDs carry the specd.io/conversion annotation (empty rules:
// field for field), as docs/crds.md tells a user to do.
func corpusCRDDir(t *testing.T, k *harness.Kubectl, p corpusProject) string {
	t.Helper()
	src := filepath.Join(p.dir, "crds")
	files, _ := filepath.Glob(filepath.Join(src, "*.yaml"))
	out := filepath.Join(k.Dir, p.name)
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	webhooks := 0
	for _, f := range files {
		var docs []string
		changed := false
		for _, doc := range crdcorpus.YAMLDocs(t, f) {
			withRules, ok := withConversionRules(t, doc)
			changed = changed || ok
			docs = append(docs, string(withRules))
		}
		if !changed {
			continue
		}
		webhooks++
		data := `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(docs, ",") + "]}"
		harness.WriteFile(t, out, strings.TrimSuffix(filepath.Base(f), ".yaml")+".json", data)
	}
	if webhooks == 0 {
		return src
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".yaml") + ".json"; !harness.FileExists(filepath.Join(out, name)) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			harness.WriteFile(t, out, filepath.Base(f), string(data))
		}
	}
	return out
}

// withConversionRules adds empty specd conversion rules for every version
// but the storage one to a CRD that names a conversion webhook.
func withConversionRules(t *testing.T, doc []byte) ([]byte, bool) {
	t.Helper()
	var crd crdcorpus.CRD
	if err := json.Unmarshal(doc, &crd); err != nil {
		t.Fatal(err)
	}
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != "Webhook" {
		return doc, false
	}
	rules := map[string][]any{}
	for _, v := range crd.Spec.Versions {
		if !v.Storage {
			rules[v.Name] = []any{}
		}
	}
	text, _ := json.Marshal(rules)
	var obj map[string]any
	if err := json.Unmarshal(doc, &obj); err != nil {
		t.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	annotations["specd.io/conversion"] = string(text)
	meta["annotations"] = annotations
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return data, true
}

// checkServedCRDs checks each CRD of p as the API serves it: its schemas
// exactly as published, and a list of every served version answered.
func checkServedCRDs(t *testing.T, dyn dynamic.Interface, p corpusProject) {
	t.Helper()
	ctx := harness.Context(t, time.Minute)
	published := publishedSchemas(t, p)
	for _, c := range p.crds {
		name := c.Spec.Names.Plural + "." + c.Spec.Group
		got, err := dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s: get crd %s: %v", p.name, name, err)
			continue
		}
		versions, _, _ := unstructured.NestedSlice(got.Object, "spec", "versions")
		for _, v := range versions {
			vm := v.(map[string]any)
			vname := vm["name"].(string)
			s, _, _ := unstructured.NestedFieldNoCopy(vm, "schema", "openAPIV3Schema")
			if diff := firstDiff(s, published[name+"/"+vname], ""); diff != "" {
				t.Errorf("%s: crd %s version %s: the served schema differs from the published one at %s", p.name, name, vname, diff)
			}
		}
		if len(versions) != len(c.Spec.Versions) {
			t.Errorf("%s: crd %s serves %d versions, the file has %d", p.name, name, len(versions), len(c.Spec.Versions))
		}
	}
	checkListed(t, dyn, p)
}

// checkListed lists every served version of every CRD of p.
func checkListed(t *testing.T, dyn dynamic.Interface, p corpusProject) {
	t.Helper()
	ctx := harness.Context(t, time.Minute)
	for _, c := range p.crds {
		for _, v := range c.Spec.Versions {
			if !v.Served {
				continue
			}
			gvr := schema.GroupVersionResource{Group: c.Spec.Group, Version: v.Name, Resource: c.Spec.Names.Plural}
			if _, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{}); err != nil {
				t.Errorf("%s: list %s: %v", p.name, gvr, err)
			}
		}
	}
}

// firstDiff is the path of the first place where a and b differ, or "".
func firstDiff(a, b any, at string) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			if d := firstDiff(am[k], bm[k], at+"."+k); d != "" {
				return d
			}
		}
		return ""
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			if d := firstDiff(as[i], bs[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	return fmt.Sprintf("%s (served %#v, published %#v)", at, a, b)
}

// publishedSchemas are the openAPIV3Schemas of p's CRD files as JSON
// reads them, by "<crd name>/<version>".
func publishedSchemas(t *testing.T, p corpusProject) map[string]any {
	t.Helper()
	out := map[string]any{}
	files, _ := filepath.Glob(filepath.Join(p.dir, "crds", "*.yaml"))
	for _, f := range files {
		for _, doc := range crdcorpus.YAMLDocs(t, f) {
			var obj map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
				t.Fatal(err)
			}
			name, _, _ := unstructured.NestedString(obj, "metadata", "name")
			versions, _, _ := unstructured.NestedSlice(obj, "spec", "versions")
			for _, v := range versions {
				vm := v.(map[string]any)
				s, _, _ := unstructured.NestedFieldNoCopy(vm, "schema", "openAPIV3Schema")
				out[name+"/"+vm["name"].(string)] = s
			}
		}
	}
	return out
}

// corpusObject is one document of a project's example folders.
type corpusObject struct {
	key string // "<project>/<folder>/<file>#<doc>"
	obj *unstructured.Unstructured
}

// corpusObjects are the documents of p's folder sub.
func corpusObjects(t *testing.T, p corpusProject, sub string) []corpusObject {
	t.Helper()
	var out []corpusObject
	files, _ := filepath.Glob(filepath.Join(p.dir, sub, "*.yaml"))
	for _, f := range files {
		for i, doc := range crdcorpus.YAMLDocs(t, f) {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(doc); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, corpusObject{key: fmt.Sprintf("%s/%s/%s#%d", p.name, sub, filepath.Base(f), i), obj: u})
		}
	}
	return out
}

// createExampleNamespaces creates the namespaces the examples name, as a
// user would before applying them.
func createExampleNamespaces(t *testing.T, s *harness.Specd, projects []corpusProject) {
	t.Helper()
	seen := map[string]bool{"default": true}
	var names []string
	for _, p := range projects {
		for _, sub := range []string{"examples", "invalid-examples", "rejected-examples"} {
			for _, o := range corpusObjects(t, p, sub) {
				if ns := o.obj.GetNamespace(); ns != "" && !seen[ns] {
					seen[ns] = true
					names = append(names, ns)
				}
			}
		}
	}
	harness.CreateNamespaces(t, s, names...)
}

// checkCorpusObjects creates every example object of p: the published
// ones must be accepted, the invalid and rejected ones refused with
// kube's answer. It returns how many of each it sent.
func checkCorpusObjects(t *testing.T, dyn dynamic.Interface, p corpusProject) (created, refused int) {
	t.Helper()
	ctx := harness.Context(t, time.Minute)
	recorded := crdcorpus.RecordedErrors(t, p.dir)
	for _, sub := range []string{"examples", "invalid-examples", "rejected-examples"} {
		for _, o := range corpusObjects(t, p, sub) {
			client, err := resourceFor(dyn, p, o.obj)
			if err != nil {
				t.Errorf("%s: %v", o.key, err)
				continue
			}
			_, err = client.Create(ctx, o.obj, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				// An earlier example took the name: judge this one as a
				// create all the same, without storing it.
				_, err = client.Create(ctx, o.obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			}
			if sub == "examples" {
				created++
				if err != nil {
					t.Errorf("%s: want accepted, got %v", o.key, err)
				}
				continue
			}
			refused++
			want, ok := kubeAnswer(o.key, recorded)
			if !ok {
				t.Errorf("%s: the corpus records no answer of kube's", o.key)
				continue
			}
			checkRefusal(t, o.key, err, want)
		}
	}
	return created, refused
}

// kubeAnswer is what kube-apiserver answers a refused corpus object: the
// errors SOURCE.txt records, or kube's CEL error, as causes
// "<field>: <detail>", sorted; the CEL ones also carry their type.
func kubeAnswer(key string, recorded map[string][]string) ([]string, bool) {
	if cel, ok := crdcorpus.CELRefusals[key]; ok {
		return []string{cel}, true
	}
	_, rest, _ := strings.Cut(key, "/")
	want := append([]string(nil), recorded[rest]...)
	sort.Strings(want)
	return want, len(want) > 0
}

// checkRefusal checks err is kube's 422 Invalid whose causes are want.
func checkRefusal(t *testing.T, key string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted, want refused with\n%s", key, strings.Join(want, "\n"))
		return
	}
	st := harness.StatusOf(err)
	if !apierrors.IsInvalid(err) || st.Code != 422 || st.Details == nil {
		t.Errorf("%s: %v (code %d reason %s), want 422 Invalid", key, err, st.Code, st.Reason)
		return
	}
	withType := strings.HasPrefix(want[0], "FieldValue")
	got := make([]string, 0, len(st.Details.Causes))
	for _, c := range st.Details.Causes {
		cause := c.Field + ": " + c.Message
		if withType {
			cause = string(c.Type) + " " + cause
		}
		got = append(got, cause)
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: causes\n%s\nwant kube's\n%s", key, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// resourceFor is the client for obj's resource, namespaced as the CRD of
// p that serves its kind says (default when obj names no namespace).
func resourceFor(dyn dynamic.Interface, p corpusProject, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gv, err := schema.ParseGroupVersion(obj.GetAPIVersion())
	if err != nil {
		return nil, err
	}
	for _, c := range p.crds {
		if c.Spec.Group != gv.Group || c.Spec.Names.Kind != obj.GetKind() {
			continue
		}
		r := dyn.Resource(gv.WithResource(c.Spec.Names.Plural))
		if c.Spec.Scope == "Cluster" {
			return r, nil
		}
		ns := obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		return r.Namespace(ns), nil
	}
	return nil, fmt.Errorf("no CRD of %s serves %s", p.name, obj.GroupVersionKind())
}
