package crds

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// gizmoCRD is a CRD file as controller-gen writes one; props are the
// properties of spec in v1, annotations the metadata's.
func gizmoCRD(props, annotations string) string {
	return `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.parts.example.com
  annotations: {` + annotations + `}
spec:
  group: parts.example.com
  names: {kind: Gizmo, listKind: GizmoList, plural: gizmos, singular: gizmo, shortNames: [gz], categories: [parts]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Teeth, type: integer, jsonPath: .spec.teeth}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {` + props + `}
            anyOf:
            - properties: {teeth: {minimum: 1}}
`
}

// TestCRDFiles serves a directory of CRD files and changes it while specd
// runs: objects, discovery and tables as kube serves them, a CRD added,
// a breaking change refused until the CRD's annotation allows it, and a
// webhook CRD refused until a side file gives specd's rules.
func TestCRDFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	harness.WriteFile(t, dir, "gizmos.yaml", gizmoCRD("teeth: {type: integer}, color: {type: string}", ""))
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", k.Manifest(t, "g1.yaml", "apiVersion: parts.example.com/v1\nkind: Gizmo\nmetadata: {name: g1}\nspec: {teeth: 12, color: red}\n"))
	if out := k.OK(t, "get", "gz"); !strings.Contains(out, "TEETH") || harness.ParseTable(t, out).Row("NAME", "g1")["TEETH"] != "12" {
		t.Errorf("kubectl get gz:\n%s", out)
	}
	if out := k.OK(t, "get", "parts", "-o", "name"); strings.TrimSpace(out) != "gizmo.parts.example.com/g1" {
		t.Errorf("kubectl get parts (the category): %q", out)
	}
	if r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/apis/parts.example.com/v1/namespaces/default/gizmos"}); !strings.Contains(r.Body, `"kind":"GizmoList"`) {
		t.Errorf("list: HTTP %d %s", r.Code, r.Body)
	}
	if msg := k.Fail(t, "create", "-f", k.Manifest(t, "g0.yaml", "apiVersion: parts.example.com/v1\nkind: Gizmo\nmetadata: {name: g0}\nspec: {teeth: 0}\n")); !strings.Contains(msg, "must validate at least one schema (anyOf)") {
		t.Errorf("teeth 0: %s", msg)
	}

	t.Run("a CRD file added", func(t *testing.T) {
		harness.WriteFile(t, dir, "cogs.json", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"cogs.parts.example.com"},
			"spec":{"group":"parts.example.com","names":{"kind":"Cog","plural":"cogs"},"scope":"Cluster",
			"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`)
		harness.Eventually(t, "cogs served", func() bool {
			return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/apis/parts.example.com/v1/cogs"}).Code == 200
		})
	})

	t.Run("a breaking change is refused", func(t *testing.T) {
		harness.WriteFile(t, dir, "gizmos.yaml", gizmoCRD("teeth: {type: integer}", ""))
		harness.Eventually(t, "the refusal", func() bool {
			r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"})
			return strings.Contains(r.Body, "schema change refused") && strings.Contains(r.Body, "field-removed") &&
				strings.Contains(r.Body, "gizmos.yaml#/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/color")
		})
	})

	t.Run("the CRD's annotation lets it through", func(t *testing.T) {
		harness.WriteFile(t, dir, "gizmos.yaml", gizmoCRD("teeth: {type: integer}", `specd.io/allow-breaking: "true"`))
		harness.Eventually(t, "the change applied", func() bool {
			return !strings.Contains(testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"}).Body, "[!]schemas")
		})
	})

	t.Run("a webhook CRD needs specd's rules", func(t *testing.T) {
		webhook := strings.Replace(gizmoCRD("teeth: {type: integer}", `specd.io/allow-breaking: "true"`), "  scope: Namespaced\n",
			"  scope: Namespaced\n  conversion: {strategy: Webhook}\n", 1)
		webhook = strings.Replace(webhook, "  versions:\n", "  versions:\n  - name: v1beta1\n    served: true\n    storage: false\n"+
			"    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {cogs: {type: integer}}}}}}\n", 1)
		harness.WriteFile(t, dir, "gizmos.yaml", webhook)
		harness.Eventually(t, "the refusal", func() bool {
			return strings.Contains(testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"}).Body, "specd calls no conversion webhook")
		})
		harness.WriteFile(t, dir, "gizmo-rules.yaml", "apiVersion: specd.io/v1alpha1\nkind: ConversionRules\nmetadata: {name: gizmos.parts.example.com}\n"+
			"spec:\n  versions:\n    v1beta1:\n    - rename: {from: spec.cogs, to: spec.teeth}\n")
		harness.Eventually(t, "v1beta1 served", func() bool {
			return testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/apis/parts.example.com/v1beta1/namespaces/default/gizmos/g1"}).Code == 200
		})
		if out := k.OK(t, "get", "gizmos.v1beta1.parts.example.com", "g1", "-o", "jsonpath={.spec}"); out != `{"cogs":12}` {
			t.Errorf("g1 in v1beta1: %s", out)
		}
	})

	t.Run("a CRD file beside a specd file of the same resource", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(harness.RepoRoot, "examples", "schemas", "shop.example.com", "v1.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, dir, "shop.yaml", string(data))
		harness.WriteFile(t, dir, "widgets.yaml", strings.NewReplacer("gizmos.parts", "widgets.shop", "parts.example.com", "shop.example.com",
			"Gizmo", "Widget", "gizmo", "widget", "[gz]", "[wg]", "[parts]", "[shop]").Replace(gizmoCRD("teeth: {type: integer}", "")))
		harness.Eventually(t, "the conflict", func() bool {
			body := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/readyz?verbose"}).Body
			return strings.Contains(body, "widgets.yaml") && strings.Contains(body, "shop.yaml")
		})
	})
}
