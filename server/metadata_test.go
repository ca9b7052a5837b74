package server

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The regression test of issue 13's defect 3, on the real engine and
// etcd: every write validates all the metadata, as kube-apiserver does.

func TestMetadataValidatedOnEveryWrite(t *testing.T) {
	base := startSpecd(t)
	const w = dupWidgets + "/fin"
	created := exchange{method: "POST", path: dupWidgets, contentType: "application/json", code: 201,
		body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"fin"},"spec":{"color":"red"}}`}.run(t, base)
	rv := gjson.Get(created, "metadata.resourceVersion").Str
	// kube-apiserver answers with apimachinery's ValidateFinalizers: one
	// cause per broken rule, each on metadata.finalizers.
	badFinalizers := func(t *testing.T, b string) {
		t.Helper()
		causes := gjson.Get(b, "details.causes.#.field").Array()
		for _, c := range causes {
			if c.Str != "metadata.finalizers" {
				t.Errorf("cause on %s: %s", c.Str, b)
			}
		}
		msg := gjson.Get(b, "message").Str
		if len(causes) == 0 || !strings.HasPrefix(msg, `Widget.shop.example.com "fin" is invalid: [metadata.finalizers: Invalid value: `) ||
			!strings.Contains(msg, `Invalid value: "": name part must be non-empty`) {
			t.Errorf("answer: %s", b)
		}
	}
	unchanged := exchange{method: "GET", path: w, code: 200, check: func(t *testing.T, b string) {
		if gjson.Get(b, "metadata.finalizers").Exists() || gjson.Get(b, "metadata.resourceVersion").Str != rv {
			t.Errorf("stored: %s", b)
		}
	}}
	put := strings.Replace(created, `"name":"fin"`, `"name":"fin","finalizers":["bad finalizer",""]`, 1)
	steps := []struct {
		name string
		x    exchange
	}{
		{"merge patch, null finalizer", exchange{method: "PATCH", path: w, contentType: mergePatch,
			body: `{"metadata":{"finalizers":[null]}}`, code: 422, reason: metav1.StatusReasonInvalid, check: badFinalizers}},
		{"unchanged after merge patch", unchanged},
		{"merge patch, bad finalizers", exchange{method: "PATCH", path: w, contentType: mergePatch,
			body: `{"metadata":{"finalizers":["bad finalizer",""]}}`, code: 422, reason: metav1.StatusReasonInvalid, check: badFinalizers}},
		{"put, bad finalizers", exchange{method: "PUT", path: w, contentType: "application/json",
			body: put, code: 422, reason: metav1.StatusReasonInvalid, check: badFinalizers}},
		{"json patch, bad finalizers", exchange{method: "PATCH", path: w, contentType: jsonPatch,
			body: `[{"op":"add","path":"/metadata/finalizers","value":["bad finalizer",""]}]`, code: 422, reason: metav1.StatusReasonInvalid, check: badFinalizers}},
		{"apply, bad finalizers", exchange{method: "PATCH", path: w + "?fieldManager=m", contentType: applyPatch,
			body: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: fin\n  finalizers: [\"bad finalizer\"]\n", code: 422, reason: metav1.StatusReasonInvalid}},
		{"merge patch, bad label", exchange{method: "PATCH", path: w, contentType: mergePatch,
			body: `{"metadata":{"labels":{"a b":"c"}}}`, code: 422, reason: metav1.StatusReasonInvalid, check: contains(`metadata.labels`)}},
		{"merge patch, bad owner reference", exchange{method: "PATCH", path: w, contentType: mergePatch,
			body: `{"metadata":{"ownerReferences":[null]}}`, code: 422, reason: metav1.StatusReasonInvalid, check: contains(`metadata.ownerReferences[0].apiVersion`)}},
		{"unchanged at the end", unchanged},
		{"apply still works", exchange{method: "PATCH", path: w + "?fieldManager=m", contentType: applyPatch,
			body: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: fin\n  labels: {applied: \"yes\"}\n", code: 200,
			check: contains(`"applied":"yes"`)}},
		{"delete still works", exchange{method: "DELETE", path: w, code: 200}},
		{"deleted", exchange{method: "GET", path: w, code: 404, reason: metav1.StatusReasonNotFound}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { s.x.run(t, base) })
	}
}
