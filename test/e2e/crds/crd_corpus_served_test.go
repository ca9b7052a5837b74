package crds

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// checkServedAsKube compares what specd serves for each CRD of p with
// what kube-apiserver serves for the same CRD: each version's discovery
// (names, scope, kind, verbs, short names, categories, the status and
// scale subresources), unserved versions left out, the columns of a
// Table (Name, then the version's printer columns, or Age when it has
// none), the warning that requests to a deprecated version get, and
// which fields a field selector may name.
func checkServedAsKube(t *testing.T, s *harness.Specd, p corpusProject) {
	t.Helper()
	disc, err := discovery.NewDiscoveryClientForConfig(harness.RestConfig(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.crds {
		for i := range c.Spec.Versions {
			at := fmt.Sprintf("%s: %s.%s %s", p.name, c.Spec.Names.Plural, c.Spec.Group, c.Spec.Versions[i].Name)
			gv := c.Spec.Group + "/" + c.Spec.Versions[i].Name
			list, err := disc.ServerResourcesForGroupVersion(gv)
			served := c.Spec.Versions[i].Served
			if !served {
				if err == nil && findResource(list, c.Spec.Names.Plural) != nil {
					t.Errorf("%s: not served, but discovery lists it", at)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: discovery: %v", at, err)
				continue
			}
			checkDiscovered(t, at, c, i, list)
			checkTableAndWarning(t, s, at, c, i)
			checkSelectableFields(t, s, at, c, i)
		}
	}
}

func findResource(list *metav1.APIResourceList, name string) *metav1.APIResource {
	for i := range list.APIResources {
		if list.APIResources[i].Name == name {
			return &list.APIResources[i]
		}
	}
	return nil
}

// checkDiscovered compares version i of c with its discovery entries.
func checkDiscovered(t *testing.T, at string, c *crdcorpus.CRD, i int, list *metav1.APIResourceList) {
	t.Helper()
	n := c.Spec.Names
	r := findResource(list, n.Plural)
	if r == nil {
		t.Errorf("%s: not in discovery", at)
		return
	}
	singular := n.Singular
	if singular == "" {
		singular = strings.ToLower(n.Kind)
	}
	want := fmt.Sprintf("kind=%s singular=%s namespaced=%t shortNames=%v categories=%v verbs=%v",
		n.Kind, singular, c.Spec.Scope == "Namespaced", n.ShortNames, n.Categories,
		[]string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"})
	verbs := slices.Sorted(slices.Values(r.Verbs))
	got := fmt.Sprintf("kind=%s singular=%s namespaced=%t shortNames=%v categories=%v verbs=%v",
		r.Kind, r.SingularName, r.Namespaced, r.ShortNames, r.Categories, verbs)
	if got != want {
		t.Errorf("%s: discovery\n got %s\nwant %s", at, got, want)
	}
	sub := c.Spec.Versions[i].Subresources
	hasStatus, hasScale := sub != nil && sub.Status != nil, sub != nil && sub.Scale != nil
	if (findResource(list, n.Plural+"/status") != nil) != hasStatus || (findResource(list, n.Plural+"/scale") != nil) != hasScale {
		t.Errorf("%s: discovery's subresources differ from the CRD's (status %t, scale %t)", at, hasStatus, hasScale)
	}
}

// checkTableAndWarning lists version i of c as a Table and compares its
// columns, and the Warning header, with kube-apiserver's.
func checkTableAndWarning(t *testing.T, s *harness.Specd, at string, c *crdcorpus.CRD, i int) {
	t.Helper()
	v := c.Spec.Versions[i]
	url := fmt.Sprintf("%s/apis/%s/%s/%s", s.URL, c.Spec.Group, v.Name, c.Spec.Names.Plural)
	resp := testhttp.Do(t, s.Client, testhttp.Request{URL: url, Accept: "application/json;as=Table;v=v1;g=meta.k8s.io"})
	var table metav1.Table
	if err := json.Unmarshal([]byte(resp.Body), &table); err != nil || resp.Code != http.StatusOK {
		t.Errorf("%s: table: %d %v", at, resp.Code, err)
		return
	}
	wantCols := []string{"Name"}
	for _, col := range v.AdditionalPrinterColumns {
		wantCols = append(wantCols, col["name"].(string))
	}
	if len(v.AdditionalPrinterColumns) == 0 {
		wantCols = append(wantCols, "Age")
	}
	var gotCols []string
	for _, col := range table.ColumnDefinitions {
		gotCols = append(gotCols, col.Name)
	}
	if !slices.Equal(gotCols, wantCols) {
		t.Errorf("%s: table columns %q, want %q", at, gotCols, wantCols)
	}
	if got, want := warningText(resp.Header), deprecationWarning(c, i); got != want {
		t.Errorf("%s: warning %q, want %q", at, got, want)
	}
}

// deprecationWarning is the warning kube-apiserver sends with every
// request to version i of c: "" unless it is deprecated; by default it
// names the newest served version that is not deprecated and is newer.
func deprecationWarning(c *crdcorpus.CRD, i int) string {
	v := c.Spec.Versions[i]
	switch {
	case !v.Deprecated:
		return ""
	case v.DeprecationWarning != nil:
		return *v.DeprecationWarning
	}
	msg := fmt.Sprintf("%s/%s %s is deprecated", c.Spec.Group, v.Name, c.Spec.Names.Kind)
	newest := ""
	for _, o := range c.Spec.Versions {
		if o.Served && !o.Deprecated && version.CompareKubeAwareVersionStrings(v.Name, o.Name) < 0 &&
			(newest == "" || version.CompareKubeAwareVersionStrings(o.Name, newest) > 0) {
			newest = o.Name
		}
	}
	if newest != "" {
		msg += fmt.Sprintf("; use %s/%s %s", c.Spec.Group, newest, c.Spec.Names.Kind)
	}
	return msg
}

// warningText is the text of a response's Warning headers (299 - "text").
func warningText(h http.Header) string {
	var texts []string
	for _, w := range h.Values("Warning") {
		_, text, _ := strings.Cut(w, `"`)
		texts = append(texts, strings.TrimSuffix(text, `"`))
	}
	return strings.Join(texts, "; ")
}

// checkSelectableFields lists version i of c with a field selector on
// each of its selectable fields, and on metadata.name, which kube-apiserver
// accepts, and on a field that is not selectable, which it refuses with 400.
func checkSelectableFields(t *testing.T, s *harness.Specd, at string, c *crdcorpus.CRD, i int) {
	t.Helper()
	v := c.Spec.Versions[i]
	fields := []string{"metadata.name"}
	for _, f := range v.SelectableFields {
		fields = append(fields, strings.TrimPrefix(f["jsonPath"].(string), "."))
	}
	base := fmt.Sprintf("%s/apis/%s/%s/%s?fieldSelector=", s.URL, c.Spec.Group, v.Name, c.Spec.Names.Plural)
	for _, f := range fields {
		if code := testhttp.Do(t, s.Client, testhttp.Request{URL: base + f + "%3Dx"}).Code; code != http.StatusOK {
			t.Errorf("%s: fieldSelector on %s: %d, want 200", at, f, code)
		}
	}
	if code := testhttp.Do(t, s.Client, testhttp.Request{URL: base + "spec.notSelectable%3Dx"}).Code; code != http.StatusBadRequest {
		t.Errorf("%s: fieldSelector on a field that is not selectable: %d, want 400", at, code)
	}
}
