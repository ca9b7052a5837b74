package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/engine"
)

func TestErrorsBecomeStatus(t *testing.T) {
	widgets := schema.GroupResource{Group: "shop.example.com", Resource: "widgets"}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "shop.example.com", Kind: "Widget"}, "bad", field.ErrorList{
		field.Invalid(field.NewPath("spec", "size"), 0, "spec.size in body should be greater than or equal to 1"),
	})
	tests := map[string]struct {
		err  error
		code int
		want string // the exact body, for the Status errors
	}{
		"already exists": {err: apierrors.NewAlreadyExists(widgets, "w1"), code: 409,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.shop.example.com \"w1\" already exists","reason":"AlreadyExists","details":{"name":"w1","group":"shop.example.com","kind":"widgets"},"code":409}`},
		"conflict": {err: apierrors.NewConflict(widgets, "w1", errors.New("the object has been modified; please apply your changes to the latest version and try again")), code: 409,
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on widgets.shop.example.com \"w1\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"w1","group":"shop.example.com","kind":"widgets"},"code":409}`},
		"invalid":           {err: invalid, code: 422},
		"wrapped":           {err: fmt.Errorf("engine: create: %w", apierrors.NewNotFound(widgets, "w1")), code: 404},
		"plain error":       {err: errors.New("etcd: connection refused"), code: 500},
		"status error code": {err: &apierrors.StatusError{ErrStatus: metav1.Status{Reason: metav1.StatusReasonTimeout, Message: "slow"}}, code: 500},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			store := seeded(t)
			store.err = tc.err
			w := serve(t, newTestServer(t, store), request{path: widgetsPath + "/w1"})
			if w.Code != tc.code {
				t.Fatalf("code = %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			st := decodeStatus(t, w)
			if tc.want != "" && w.Body.String() != tc.want {
				t.Errorf("body\n got %s\nwant %s", w.Body, tc.want)
			}
			var api apierrors.APIStatus
			if errors.As(tc.err, &api) && tc.code != 500 {
				want := api.Status()
				want.Kind, want.APIVersion, want.Status = "Status", "v1", metav1.StatusFailure
				if !reflect.DeepEqual(st, want) {
					t.Errorf("status\n got %+v\nwant %+v", st, want)
				}
			}
			if tc.code == 500 && st.Reason == "" {
				t.Errorf("500 without a reason: %s", w.Body)
			}
		})
	}
}

func TestWarningHeaders(t *testing.T) {
	store := newFakeStore()
	store.warnings = []string{`unknown field "spec.bogus"`, `duplicate field "spec.size"`}
	w := serve(t, newTestServer(t, store), request{method: "POST", path: widgetsPath, body: widgetW1})
	if w.Code != http.StatusCreated {
		t.Fatalf("code %d: %s", w.Code, w.Body)
	}
	want := []string{`299 - "unknown field \"spec.bogus\""`, `299 - "duplicate field \"spec.size\""`}
	if got := w.Header().Values("Warning"); !reflect.DeepEqual(got, want) {
		t.Errorf("Warning = %q, want %q", got, want)
	}
}

func TestPanicsBecomeInternalErrors(t *testing.T) {
	s := newTestServer(t, panicStore{newFakeStore()})
	w := serve(t, s, request{path: widgetsPath + "/w1"})
	st := decodeStatus(t, w)
	if w.Code != 500 || st.Reason != metav1.StatusReasonInternalError {
		t.Errorf("code %d: %s", w.Code, w.Body)
	}
}

type panicStore struct{ *fakeStore }

func (panicStore) Get(context.Context, engine.Ref) ([]byte, error) {
	panic("boom")
}
