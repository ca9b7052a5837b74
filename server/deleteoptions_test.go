package server

import (
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
)

func TestDeleteOptions(t *testing.T) {
	tests := map[string]struct {
		query, body string
		want        engine.DeleteOptions
		err         func(error) bool
	}{
		"none":                {},
		"query policy":        {query: "propagationPolicy=Foreground", want: engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationForeground}},
		"body policy":         {body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`, want: engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationOrphan}},
		"query wins":          {query: "propagationPolicy=Background", body: `{"propagationPolicy":"Orphan"}`, want: engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationBackground}},
		"preconditions":       {body: `{"preconditions":{"uid":"u","resourceVersion":"7"}}`, want: engine.DeleteOptions{UID: "u", ResourceVersion: "7"}},
		"dry run":             {query: "dryRun=All", want: engine.DeleteOptions{DryRun: true}},
		"grace period":        {query: "gracePeriodSeconds=0", want: engine.DeleteOptions{GracePeriodSeconds: ptrTo(int64(0))}},
		"orphanDependents":    {query: "orphanDependents=true", want: engine.DeleteOptions{OrphanDependents: ptrTo(true)}},
		"bad policy":          {query: "propagationPolicy=Later", err: apierrors.IsInvalid},
		"policy and orphan":   {query: "propagationPolicy=Orphan&orphanDependents=true", err: apierrors.IsInvalid},
		"bad grace period":    {query: "gracePeriodSeconds=soon", err: apierrors.IsBadRequest},
		"bad orphan":          {query: "orphanDependents=maybe", err: apierrors.IsBadRequest},
		"bad body":            {body: `{"preconditions":`, err: apierrors.IsBadRequest},
		"bad dry run in body": {body: `{"dryRun":["Some"]}`, err: apierrors.IsInvalid},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest("DELETE", "/x?"+tc.query, strings.NewReader(tc.body))
			if tc.body == "" {
				r = httptest.NewRequest("DELETE", "/x?"+tc.query, nil)
			}
			got, err := deleteOptions(r, target{engine.Ref{Version: testRegistry().Lookup("shop.example.com", "v1", "widgets")}}, 1<<20)
			if tc.err != nil {
				if !tc.err(err) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.PropagationPolicy != tc.want.PropagationPolicy || got.UID != tc.want.UID || got.ResourceVersion != tc.want.ResourceVersion ||
				got.DryRun != tc.want.DryRun || !samePtr(got.GracePeriodSeconds, tc.want.GracePeriodSeconds) || !samePtr(got.OrphanDependents, tc.want.OrphanDependents) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func samePtr[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
