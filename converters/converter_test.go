package converters

import "testing"

func TestNoneConvert(t *testing.T) {
	tests := map[string]struct {
		in, to, want string
	}{
		"rewrites apiVersion": {
			in: `{"apiVersion":"shop.example.com/v1beta1","kind":"Widget","spec":{"size":1}}`, to: "shop.example.com/v1",
			want: `{"apiVersion":"shop.example.com/v1","kind":"Widget","spec":{"size":1}}`,
		},
		"same version is untouched": {
			in: `{"apiVersion":"shop.example.com/v1", "kind":"Widget"}`, to: "shop.example.com/v1",
			want: `{"apiVersion":"shop.example.com/v1", "kind":"Widget"}`,
		},
		"adds a missing apiVersion": {
			in: `{"kind":"Widget"}`, to: "shop.example.com/v1",
			want: `{"kind":"Widget","apiVersion":"shop.example.com/v1"}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := None{}.Convert([]byte(tc.in), tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
