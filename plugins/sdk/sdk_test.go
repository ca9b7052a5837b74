package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

func TestSetCondition(t *testing.T) {
	old := []Condition{{Type: "Ready", Status: "False", Reason: "Scaling", LastTransitionTime: "2020-01-01T00:00:00Z"}}

	same := SetCondition(old, Condition{Type: "Ready", Status: "False", Reason: "Still", ObservedGeneration: 2})
	if same[0].LastTransitionTime != "2020-01-01T00:00:00Z" || same[0].Reason != "Still" || same[0].ObservedGeneration != 2 {
		t.Errorf("same status: %+v, want the old transition time and the new reason", same[0])
	}
	changed := SetCondition(old, Condition{Type: "Ready", Status: "True", Reason: "Converged"})
	if changed[0].LastTransitionTime == "2020-01-01T00:00:00Z" || changed[0].LastTransitionTime == "" {
		t.Errorf("changed status: transition time %q, want now", changed[0].LastTransitionTime)
	}
	if old[0].Status != "False" {
		t.Error("SetCondition changed its argument")
	}
	added := SetCondition(old, Condition{Type: "Degraded", Status: "False"})
	if len(added) != 2 || FindCondition(added, "Degraded") == nil || added[1].LastTransitionTime == "" {
		t.Errorf("added: %+v", added)
	}
	if FindCondition(added, "Nope") != nil {
		t.Error("FindCondition of an absent type")
	}
	o := mustParse(t, `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"r","message":"m","lastTransitionTime":"t"}]}}`)
	if diff := cmp.Diff([]Condition{{Type: "Ready", Status: "True", Reason: "r", Message: "m", LastTransitionTime: "t"}}, o.Conditions()); diff != "" {
		t.Errorf("Conditions (-want +got):\n%s", diff)
	}
}

func TestStatusErrors(t *testing.T) {
	tests := map[string]struct {
		status string
		is     func(error) bool
		want   bool
	}{
		"not found":          {`{"code":404,"reason":"NotFound","message":"ships \"x\" not found"}`, IsNotFound, true},
		"not found by code":  {`{"code":404}`, IsNotFound, true},
		"already exists":     {`{"code":409,"reason":"AlreadyExists"}`, IsAlreadyExists, true},
		"conflict":           {`{"code":409,"reason":"Conflict"}`, IsConflict, true},
		"conflict is not AE": {`{"code":409,"reason":"Conflict"}`, IsAlreadyExists, false},
		"409 without reason": {`{"code":409}`, IsAlreadyExists, false},
		"invalid":            {`{"code":422,"reason":"Invalid"}`, IsInvalid, true},
		"forbidden":          {`{"code":403,"reason":"Forbidden"}`, IsForbidden, true},
		"other reason":       {`{"code":404,"reason":"Gone"}`, IsNotFound, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := fmt.Errorf("wrapped: %w", statusError([]byte(tc.status)))
			if got := tc.is(err); got != tc.want {
				t.Errorf("= %v, want %v (err %v)", got, tc.want, err)
			}
		})
	}
	err := statusError([]byte(`{"code":404,"reason":"NotFound","message":"gone"}`))
	if err.Error() != "gone" || ReasonOf(err) != "NotFound" || CodeOf(err) != 404 || ReasonOf(fmt.Errorf("x")) != "" {
		t.Errorf("err %v: reason %q code %d", err, ReasonOf(err), CodeOf(err))
	}
	if statusError(nil) != nil {
		t.Error("no status is an error")
	}
	if err := (noHost{}).Delete(context.Background(), Resource{}, "", ""); CodeOf(err) != 503 || IsNotFound(err) {
		t.Error("noHost answers 503")
	}
}

func TestResultStatus(t *testing.T) {
	tests := map[string]struct {
		status  any
		want    string
		wantErr bool
	}{
		"none": {status: nil, want: ""},
		"map":  {status: map[string]int{"readyReplicas": 2}, want: `{"readyReplicas":2}`},
		"struct": {status: struct {
			N int `json:"n"`
		}{3}, want: `{"n":3}`},
		"raw":        {status: json.RawMessage(`{"a":1}`), want: `{"a":1}`},
		"bytes":      {status: []byte(`{"b":1}`), want: `{"b":1}`},
		"object":     {status: NewObject("v1", "K", "", "n"), want: `{"apiVersion":"v1","kind":"K","metadata":{"name":"n"}}`},
		"nil object": {status: (*Object)(nil), want: ""},
		"not object": {status: []int{1}, wantErr: true},
		"bad bytes":  {status: []byte(`{`), wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Result{Status: tc.status}.statusJSON()
			if (err != nil) != tc.wantErr || string(got) != tc.want {
				t.Errorf("= %s, %v; want %s (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestNewServer(t *testing.T) {
	def := func(context.Context, *AdmissionRequest) error { return nil }
	val := func(context.Context, *AdmissionRequest) (FieldErrors, error) { return nil, nil }
	rec := func(context.Context, *ReconcileRequest) (Result, error) { return Result{}, nil }
	tests := map[string]struct {
		handlers []Handler
		wantErr  string
	}{
		"one of each":     {handlers: []Handler{Defaulter("g", "A", def), Validator("g", "A", val), Reconciler("g", "A", rec).WithFinalizer("g/f"), Defaulter("g", "B", def)}},
		"two defaulters":  {handlers: []Handler{Defaulter("g", "A", def), Defaulter("g", "A", def)}, wantErr: "g/A: two defaulters"},
		"two validators":  {handlers: []Handler{Validator("g", "A", val), Validator("g", "A", val)}, wantErr: "two validators"},
		"two reconcilers": {handlers: []Handler{Reconciler("g", "A", rec), Reconciler("g", "A", rec)}, wantErr: "two reconcilers"},
		"no kind":         {handlers: []Handler{Defaulter("", "", def)}, wantErr: "no group and kind"},
		"stray finalizer": {handlers: []Handler{Defaulter("g", "A", def).WithFinalizer("g/f")}, wantErr: "finalizer without a reconciler"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := newServer(tc.handlers)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
	s, err := newServer(tests["one of each"].handlers)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Describe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range resp.GetKinds() {
		got = append(got, fmt.Sprintf("%s/%s d=%v v=%v r=%v f=%s", k.GetGroup(), k.GetKind(), k.GetDefault(), k.GetValidate(), k.GetReconcile(), k.GetFinalizer()))
	}
	want := []string{"g/A d=true v=true r=true f=g/f", "g/B d=true v=false r=false f="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
}

func TestFieldErrors(t *testing.T) {
	tests := map[string]struct {
		fe                     FieldError
		typ, field, msg, value string
	}{
		"invalid":       {Invalid("spec.n", 3, "too big"), "FieldValueInvalid", "spec.n", "too big", "3"},
		"immutable":     {Immutable("spec.r", "b"), "FieldValueInvalid", "spec.r", "field is immutable", `"b"`},
		"required":      {Required("spec.r", "needed"), "FieldValueRequired", "spec.r", "needed", ""},
		"forbidden":     {Forbidden("spec.r", "no"), "FieldValueForbidden", "spec.r", "no", ""},
		"not supported": {NotSupported("spec.c", "x", "a", "b"), "FieldValueNotSupported", "spec.c", `supported values: "a", "b"`, `"x"`},
		"duplicate":     {Duplicate("spec.l[1]", "a"), "FieldValueDuplicate", "spec.l[1]", "", `"a"`},
		"no type":       {FieldError{Field: "f", Message: "m"}, "FieldValueInvalid", "f", "m", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := tc.fe.proto()
			if err != nil {
				t.Fatal(err)
			}
			if p.GetType() != tc.typ || p.GetField() != tc.field || p.GetMessage() != tc.msg || string(p.GetValue()) != tc.value {
				t.Errorf("= %v", p)
			}
		})
	}
	if _, err := Invalid("f", func() {}, "m").proto(); err == nil {
		t.Error("an unencodable value: no error")
	}
}

// TestAdmissionRequestFields checks that a handler gets every field of
// the request specd sent.
func TestAdmissionRequestFields(t *testing.T) {
	var got *AdmissionRequest
	s, err := newServer([]Handler{Defaulter("apps.example.com", "Pool", func(_ context.Context, req *AdmissionRequest) error {
		got = req
		return nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Default(context.Background(), &pluginv1.AdmissionRequest{
		Group: "apps.example.com", Version: "v1", Kind: "Pool", Resource: "pools",
		Namespace: "default", Name: "p", Operation: "UPDATE", Subresource: "scale", DryRun: true,
		Object:    []byte(`{"metadata":{"name":"p"},"spec":{"replicas":3}}`),
		OldObject: []byte(`{"metadata":{"name":"p"},"spec":{"replicas":2}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the defaulter was not called")
	}
	summary := fmt.Sprintf("%s/%s %s %s %s/%s %s %s dry=%v old=%v", got.Group, got.Version, got.Kind, got.Resource,
		got.Namespace, got.Name, got.Operation, got.Subresource, got.DryRun, got.OldObject != nil)
	if want := "apps.example.com/v1 Pool pools default/p UPDATE scale dry=true old=true"; summary != want {
		t.Errorf("request %q, want %q", summary, want)
	}
}
