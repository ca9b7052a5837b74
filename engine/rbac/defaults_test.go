package rbac

import (
	"encoding/json"
	"testing"
)

func TestApplyBindingDefaults(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"empty roleRef group (client-go's)": {
			in:   `{"roleRef":{"apiGroup":"","kind":"Role","name":"r"}}`,
			want: `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}}`},
		"no roleRef group": {
			in:   `{"roleRef":{"kind":"ClusterRole","name":"r"}}`,
			want: `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"}}`},
		"subjects by kind": {
			in: `{"subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g","apiGroup":""},{"kind":"ServiceAccount","name":"sa","namespace":"ns"},{"kind":"Unknown","name":"x"}]}`,
			want: `{"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"u"},{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"g"},` +
				`{"kind":"ServiceAccount","name":"sa","namespace":"ns"},{"kind":"Unknown","name":"x"}]}`},
		"set groups kept, even wrong ones (validation refuses them)": {
			in:   `{"roleRef":{"apiGroup":"example.com","kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"u","apiGroup":"example.com"}]}`,
			want: `{"roleRef":{"apiGroup":"example.com","kind":"Role","name":"r"},"subjects":[{"apiGroup":"example.com","kind":"User","name":"u"}]}`},
		"malformed left to validation": {in: `{"roleRef":"r","subjects":"s"}`, want: `{"roleRef":"r","subjects":"s"}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var obj map[string]any
			if err := json.Unmarshal([]byte(tc.in), &obj); err != nil {
				t.Fatal(err)
			}
			if w, err := applyBindingDefaults("v1", obj); err != nil || w != nil {
				t.Fatalf("applyBindingDefaults: %v %v", w, err)
			}
			if got, _ := json.Marshal(obj); string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
