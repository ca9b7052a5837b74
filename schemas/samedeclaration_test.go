package schemas

import "testing"

func TestSameDeclaration(t *testing.T) {
	res := func(edit func(*Resource)) *Resource {
		r := &Resource{Group: "gadgets.example.com", Plural: "gadgets", StorageVersion: "v1"}
		for _, v := range []string{"v1", "v1beta1"} {
			r.Versions = append(r.Versions, &ResourceVersion{Resource: r, Version: v, Storage: v == "v1",
				File: v + ".yaml", FileDigest: "digest of " + v})
		}
		if edit != nil {
			edit(r)
		}
		return r
	}
	tests := map[string]struct {
		a, b *Resource
		want bool
	}{
		"the same":            {a: res(nil), b: res(nil), want: true},
		"both absent":         {want: true},
		"one absent":          {a: res(nil)},
		"a file changed":      {a: res(nil), b: res(func(r *Resource) { r.Versions[1].FileDigest = "other" })},
		"declared elsewhere":  {a: res(nil), b: res(func(r *Resource) { r.Versions[1].File = "all.yaml" })},
		"a version hidden":    {a: res(nil), b: res(func(r *Resource) { r.Versions[1].Hidden = true })},
		"a version removed":   {a: res(nil), b: res(func(r *Resource) { r.Versions = r.Versions[:1] })},
		"another resource":    {a: res(nil), b: res(func(r *Resource) { r.Plural = "widgets" })},
		"the storage version": {a: res(nil), b: res(func(r *Resource) { r.StorageVersion = "v1beta1" })},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := SameDeclaration(tc.a, tc.b); got != tc.want {
				t.Errorf("SameDeclaration = %v, want %v", got, tc.want)
			}
		})
	}
}
