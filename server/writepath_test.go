package server

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The regression test of issue 13's defect 1, on the real engine and
// etcd: every step of a write reads the one decoded body, where the last
// of duplicate keys wins.

const dupWidgets = "/apis/shop.example.com/v1/namespaces/dup/widgets"

const (
	mergePatch = "application/merge-patch+json"
	jsonPatch  = "application/json-patch+json"
	applyPatch = "application/apply-patch+yaml"
)

// nameIs checks the name an answer carries.
func nameIs(want string) func(t *testing.T, b string) {
	return func(t *testing.T, b string) {
		t.Helper()
		if got := gjson.Get(b, "metadata.name").Str; got != want {
			t.Errorf("name %q, want %q: %s", got, want, b)
		}
	}
}

// contains checks that an answer contains s.
func contains(s string) func(t *testing.T, b string) {
	return func(t *testing.T, b string) {
		t.Helper()
		if !strings.Contains(b, s) {
			t.Errorf("answer lacks %q: %s", s, b)
		}
	}
}

func TestDuplicateMetadataLastWins(t *testing.T) {
	base := startSpecd(t)
	const dup = `{"metadata":{"name":"other"},"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real"},"spec":{"color":"red"}}`
	created := exchange{method: "POST", path: dupWidgets, contentType: "application/json", body: dup, code: 201,
		warning: `299 - "duplicate field \"metadata\""`, check: nameIs("real")}.run(t, base)
	rv := gjson.Get(created, "metadata.resourceVersion").Str
	steps := []struct {
		name string
		x    exchange
	}{
		{"get by the last name", exchange{method: "GET", path: dupWidgets + "/real", code: 200, check: nameIs("real")}},
		{"nothing under the first name", exchange{method: "GET", path: dupWidgets + "/other", code: 404, reason: metav1.StatusReasonNotFound}},
		{"listed once", exchange{method: "GET", path: dupWidgets, code: 200, check: func(t *testing.T, b string) {
			if n := gjson.Get(b, "items.#").Int(); n != 1 || gjson.Get(b, "items.0.metadata.name").Str != "real" {
				t.Errorf("list: %s", b)
			}
		}}},
		{"put naming evil last does not rename", exchange{method: "PUT", path: dupWidgets + "/real", contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"real","resourceVersion":"` + rv + `"},` +
				`"metadata":{"name":"evil","resourceVersion":"` + rv + `"},"spec":{"color":"blue"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, check: contains("the name of the object (evil) does not match the name on the URL (real)")}},
		{"put naming real last updates real", exchange{method: "PUT", path: dupWidgets + "/real", contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"evil","resourceVersion":"` + rv + `"},` +
				`"metadata":{"name":"real","resourceVersion":"` + rv + `"},"spec":{"color":"green"}}`,
			code: 200, check: nameIs("real")}},
		{"json patch value naming evil last", exchange{method: "PATCH", path: dupWidgets + "/real", contentType: jsonPatch,
			body: `[{"op":"replace","path":"/metadata","value":{"name":"real","namespace":"dup","name":"evil"}}]`,
			code: 400, reason: metav1.StatusReasonBadRequest, check: contains("(evil)")}},
		{"merge patch: the last labels win", exchange{method: "PATCH", path: dupWidgets + "/real", contentType: mergePatch,
			body: `{"metadata":{"labels":{"first":"1"}},"metadata":{"labels":{"last":"1"}}}`, code: 200,
			warning: `299 - "duplicate field \"metadata\""`, check: func(t *testing.T, b string) {
				if l := gjson.Get(b, "metadata.labels"); l.Get("last").Str != "1" || l.Get("first").Exists() {
					t.Errorf("labels: %s", b)
				}
			}}},
		{"merge patch, strict", exchange{method: "PATCH", path: dupWidgets + "/real?fieldValidation=Strict", contentType: mergePatch,
			body: `{"metadata":{"labels":{"a":"1"}},"metadata":{"labels":{"b":"1"}}}`, code: 422, reason: metav1.StatusReasonInvalid,
			check: contains(`duplicate field \"metadata\"`)}},
		{"apply: the last metadata wins", exchange{method: "PATCH", path: dupWidgets + "/real?fieldManager=m", contentType: applyPatch,
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"other"},"metadata":{"name":"real","labels":{"applied":"1"}}}`,
			code: 200, check: func(t *testing.T, b string) {
				if gjson.Get(b, "metadata.name").Str != "real" || gjson.Get(b, "metadata.labels.applied").Str != "1" {
					t.Errorf("applied: %s", b)
				}
			}}},
		{"apply, strict", exchange{method: "PATCH", path: dupWidgets + "/real?fieldManager=m&fieldValidation=Strict", contentType: applyPatch,
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"other"},"metadata":{"name":"real"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest}},
		{"still one object", exchange{method: "GET", path: dupWidgets, code: 200, check: func(t *testing.T, b string) {
			if n := gjson.Get(b, "items.#").Int(); n != 1 || gjson.Get(b, "items.0.metadata.name").Str != "real" {
				t.Errorf("list: %s", b)
			}
		}}},
		{"nothing under evil", exchange{method: "GET", path: dupWidgets + "/evil", code: 404, reason: metav1.StatusReasonNotFound}},
		{"create, strict", exchange{method: "POST", path: dupWidgets + "?fieldValidation=Strict", contentType: "application/json",
			body: strings.ReplaceAll(strings.ReplaceAll(dup, `"other"`, `"s1"`), `"real"`, `"s2"`), code: 400, reason: metav1.StatusReasonBadRequest,
			check: contains(`Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: duplicate field \"metadata\"`)}},
		{"strict stored nothing (first)", exchange{method: "GET", path: dupWidgets + "/s1", code: 404, reason: metav1.StatusReasonNotFound}},
		{"strict stored nothing (last)", exchange{method: "GET", path: dupWidgets + "/s2", code: 404, reason: metav1.StatusReasonNotFound}},
		{"create, ignore", exchange{method: "POST", path: dupWidgets + "?fieldValidation=Ignore", contentType: "application/json",
			body: strings.ReplaceAll(strings.ReplaceAll(dup, `"other"`, `"i1"`), `"real"`, `"i2"`), code: 201, check: nameIs("i2")}},
		{"yaml create: the last metadata wins", exchange{method: "POST", path: dupWidgets, contentType: "application/yaml",
			body: yamlDup("y1", "y2"), code: 201, check: nameIs("y2"),
			warning: `299 - "yaml: unmarshal errors: line 6: key \"metadata\" already set in map"`}},
		{"yaml: nothing under the first name", exchange{method: "GET", path: dupWidgets + "/y1", code: 404, reason: metav1.StatusReasonNotFound}},
		{"yaml create, strict", exchange{method: "POST", path: dupWidgets + "?fieldValidation=Strict", contentType: "application/yaml",
			body: yamlDup("y3", "y4"), code: 400, reason: metav1.StatusReasonBadRequest,
			check: contains(`strict decoding error: yaml: unmarshal errors: line 6: key \"metadata\" already set in map`)}},
		{"yaml strict stored nothing", exchange{method: "GET", path: dupWidgets + "/y4", code: 404, reason: metav1.StatusReasonNotFound}},
		{"delete by the last name", exchange{method: "DELETE", path: dupWidgets + "/real", code: 200}},
		{"deleted", exchange{method: "GET", path: dupWidgets + "/real", code: 404, reason: metav1.StatusReasonNotFound}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { s.x.run(t, base) })
	}
}

// yamlDup is a YAML Widget whose metadata is given twice, named first
// and then last.
func yamlDup(first, last string) string {
	return "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: " + first +
		"\nmetadata:\n  name: " + last + "\nspec:\n  color: red\n"
}
