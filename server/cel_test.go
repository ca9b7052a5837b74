package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
)

// ruledWidgets declares Rule objects whose spec carries CEL rules.
const ruledWidgets = `openapi: 3.0.3
info: {title: rules, version: v1}
x-specd: {group: rules.example.com}
components:
  schemas:
    Rule:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          required: [min, max]
          properties:
            min: {type: integer}
            max: {type: integer}
            color: {type: string, pattern: '^[a-z]+$'}
            owner: {type: string, maxLength: 20}
            mode:
              type: string
              maxLength: 10
              x-kubernetes-validations:
              - {rule: self == oldSelf, message: mode is immutable}
          x-kubernetes-validations:
          - {rule: self.min <= self.max, messageExpression: "'min must not exceed max'"}
          - {rule: "!has(self.owner) || self.owner != 'root'", message: root may not own rules, reason: FieldValueForbidden, fieldPath: .owner}
`

var rulesGVR = schema.GroupVersionResource{Group: "rules.example.com", Version: "v1", Resource: "rules"}

// startSpecdWithRules serves ruledWidgets from a real engine and etcd.
func startSpecdWithRules(t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	reg, err := schemas.LoadFS(fstest.MapFS{"rules.yaml": &fstest.MapFile{Data: []byte(ruledWidgets)}})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet}),
		Logger:   quiet,
	}))
	t.Cleanup(srv.Close)
	return dynamicClientOf(t, srv.URL).Resource(rulesGVR).Namespace("default")
}

func ruleObject(name, spec string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(`{"apiVersion":"rules.example.com/v1","kind":"Rule","metadata":{"name":"` + name + `"},"spec":` + spec + `}`)); err != nil {
		panic(err)
	}
	return u
}

// causes renders the causes of a 422 Invalid as "reason field: message",
// sorted.
func causes(t *testing.T, err error) string {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) || !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want a 422 Invalid", err)
	}
	if se.ErrStatus.Code != 422 {
		t.Errorf("code %d, want 422", se.ErrStatus.Code)
	}
	var out []string
	for _, c := range se.ErrStatus.Details.Causes {
		out = append(out, string(c.Type)+" "+c.Field+": "+c.Message)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestCELRulesOverTheAPI(t *testing.T) {
	rules := startSpecdWithRules(t)
	ctx := context.Background()
	tests := map[string]struct {
		spec string
		want string
	}{
		"a rule with messageExpression": {
			spec: `{"min":3,"max":2}`,
			want: "FieldValueInvalid spec: Invalid value: min must not exceed max",
		},
		"reason and fieldPath": {
			spec: `{"min":1,"max":2,"owner":"root"}`,
			want: "FieldValueForbidden spec.owner: Forbidden: root may not own rules",
		},
		"one cause per failed rule, merged with the schema's errors": {
			spec: `{"min":3,"max":2,"owner":"root","color":"Red"}`,
			want: "FieldValueForbidden spec.owner: Forbidden: root may not own rules\n" +
				"FieldValueInvalid spec.color: Invalid value: \"Red\": spec.color in body should match '^[a-z]+$'\n" +
				"FieldValueInvalid spec: Invalid value: min must not exceed max",
		},
		"rules are not run on an object missing a required field": {
			spec: `{"min":3}`,
			// kube-apiserver's own cause, at no field ("<nil>").
			want: "FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n" +
				"FieldValueRequired spec.max: Required value",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := rules.Create(ctx, ruleObject("bad", tc.spec), metav1.CreateOptions{})
			if got := causes(t, err); got != tc.want {
				t.Errorf("causes:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}

	created, err := rules.Create(ctx, ruleObject("good", `{"min":1,"max":2,"mode":"fast"}`), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("valid create: %v", err)
	}
	t.Run("update runs transition rules", func(t *testing.T) {
		changed := created.DeepCopy()
		_ = unstructured.SetNestedField(changed.Object, "slow", "spec", "mode")
		_, err := rules.Update(ctx, changed, metav1.UpdateOptions{})
		if got, want := causes(t, err), `FieldValueInvalid spec.mode: Invalid value: "slow": mode is immutable`; got != want {
			t.Errorf("causes:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("a patch is an update", func(t *testing.T) {
		_, err := rules.Patch(ctx, "good", types.MergePatchType, []byte(`{"spec":{"mode":"slow","min":5}}`), metav1.PatchOptions{})
		want := "FieldValueInvalid spec.mode: Invalid value: \"slow\": mode is immutable\nFieldValueInvalid spec: Invalid value: min must not exceed max"
		if got := causes(t, err); got != want {
			t.Errorf("causes:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("a valid patch", func(t *testing.T) {
		if _, err := rules.Patch(ctx, "good", types.MergePatchType, []byte(`{"spec":{"max":9}}`), metav1.PatchOptions{}); err != nil {
			t.Errorf("patch: %v", err)
		}
	})
}

// sizedWidgets declares Sized objects; limit adds a rule on spec.size.
func sizedWidgets(limit bool) string {
	rule := ""
	if limit {
		rule = "\n              x-kubernetes-validations: [{rule: self <= 10, message: at most 10}]"
	}
	return `openapi: 3.0.3
info: {title: sized, version: v1}
x-specd: {group: sized.example.com}
components:
  schemas:
    Sized:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          properties:
            label: {type: string}
            size:
              type: integer` + rule + "\n"
}

// An object stored before a rule was added can still be updated: its
// unchanged value is not judged again (ratcheting), and the failure comes
// back as a warning, as kube-apiserver sends it; a changed value is judged.
func TestCELRatchetingOverTheAPI(t *testing.T) {
	load := func(limit bool) *schemas.Registry {
		reg, err := schemas.LoadFS(fstest.MapFS{"sized.yaml": &fstest.MapFile{Data: []byte(sizedWidgets(limit))}})
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}
	var current atomic.Pointer[schemas.Registry]
	current.Store(load(false))
	quiet := slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(New(Config{
		Registry: current.Load,
		Store:    engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet}),
		Logger:   quiet,
	}))
	t.Cleanup(srv.Close)
	const sized = "/apis/sized.example.com/v1/namespaces/default/sizeds"
	exchange{method: "POST", path: sized, contentType: "application/json", code: 201,
		body: `{"apiVersion":"sized.example.com/v1","kind":"Sized","metadata":{"name":"big"},"spec":{"size":20,"label":"a"}}`}.run(t, srv.URL)

	current.Store(load(true))
	exchange{method: "PATCH", path: sized + "/big", contentType: mergePatch, body: `{"spec":{"label":"b"}}`, code: 200,
		warning: `299 - "spec.size: Invalid value: 20: at most 10"`}.run(t, srv.URL)
	exchange{method: "PATCH", path: sized + "/big", contentType: mergePatch, body: `{"spec":{"size":30}}`, code: 422,
		reason: metav1.StatusReasonInvalid, check: contains(`"message":"Invalid value: 30: at most 10","field":"spec.size"`)}.run(t, srv.URL)
	exchange{method: "POST", path: sized, contentType: "application/json", code: 422, reason: metav1.StatusReasonInvalid,
		body: `{"apiVersion":"sized.example.com/v1","kind":"Sized","metadata":{"name":"new"},"spec":{"size":20}}`}.run(t, srv.URL)
}
