package watchcache

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/schemas"
)

func TestVersionsGone(t *testing.T) {
	res := func(versions ...string) *schemas.Resource {
		r := &schemas.Resource{Group: "gadgets.example.com", Plural: "gadgets"}
		for _, v := range versions {
			name, hidden := strings.CutSuffix(v, "-")
			r.Versions = append(r.Versions, &schemas.ResourceVersion{Resource: r, Version: name, Hidden: hidden})
		}
		return r
	}
	tests := map[string]struct {
		old, next *schemas.Resource
		want      []string
	}{
		"one removed":          {old: res("v1", "v1beta1"), next: res("v1"), want: []string{"v1beta1"}},
		"one no longer served": {old: res("v1", "v1beta1"), next: res("v1", "v1beta1-"), want: []string{"v1beta1"}},
		"one added":            {old: res("v1"), next: res("v1", "v2")},
		"hidden before":        {old: res("v1", "v1beta1-"), next: res("v1")},
		"served again":         {old: res("v1", "v1beta1-"), next: res("v1", "v1beta1")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			gone := versionsGone(tc.old, tc.next)
			var got []string
			for av, err := range gone {
				v := strings.TrimPrefix(av, "gadgets.example.com/")
				got = append(got, v)
				if !apierrors.IsGone(err) || !strings.Contains(err.Error(), av+" gadgets is no longer served") {
					t.Errorf("%s: %v", v, err)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("gone %v, want %v", got, tc.want)
			}
		})
	}
}
