package filters

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestForbiddenIsKubesStatus(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{})
	tests := map[string]struct{ method, path, want string }{
		"list in a namespace": {
			method: http.MethodGet, path: "/apis/shop.example.com/v1/namespaces/default/widgets",
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.shop.example.com is forbidden: User \"bob\" cannot list resource \"widgets\" in API group \"shop.example.com\" in the namespace \"default\"","reason":"Forbidden","details":{"group":"shop.example.com","kind":"widgets"},"code":403}`,
		},
		"get a named object elsewhere": {
			method: http.MethodGet, path: "/apis/shop.example.com/v1/namespaces/other/widgets/w1",
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.shop.example.com \"w1\" is forbidden: User \"bob\" cannot get resource \"widgets\" in API group \"shop.example.com\" in the namespace \"other\"","reason":"Forbidden","details":{"name":"w1","group":"shop.example.com","kind":"widgets"},"code":403}`,
		},
		"patch a subresource at cluster scope": {
			method: http.MethodPatch, path: "/apis/shop.example.com/v1/warehouses/main/status",
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"warehouses.shop.example.com \"main\" is forbidden: User \"bob\" cannot patch resource \"warehouses/status\" in API group \"shop.example.com\" at the cluster scope","reason":"Forbidden","details":{"name":"main","group":"shop.example.com","kind":"warehouses"},"code":403}`,
		},
		"non-resource URL": {
			method: http.MethodGet, path: "/openapi/v3",
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"bob\" cannot get path \"/openapi/v3\"","reason":"Forbidden","details":{},"code":403}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, body := do(t, tc.method, url+tc.path, "bob-token")
			if code != http.StatusForbidden || body != tc.want {
				t.Fatalf("got %d %s\nwant 403 %s", code, body, tc.want)
			}
		})
	}
}

func TestImpersonation(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{})
	path := url + "/apis/shop.example.com/v1/namespaces/default/widgets/w1"

	t.Run("allowed", func(t *testing.T) {
		code, body := do(t, http.MethodGet, path, "alice-token", "Impersonate-User", "bob", "Impersonate-Group", "readers")
		if code != http.StatusOK {
			t.Fatalf("got %d %s", code, body)
		}
		s := decodeSeen(t, body)
		if s.User != "bob" || !slices.Equal(s.Groups, []string{"readers", "system:authenticated"}) {
			t.Fatalf("handler saw %+v, want bob in readers", s)
		}
	})
	t.Run("allowed by a legacy impersonate rule", func(t *testing.T) {
		// carol may not get widgets: the refusal names her.
		code, body := do(t, http.MethodGet, path, "bob-token", "Impersonate-User", "carol")
		if code != http.StatusForbidden || !strings.Contains(body, `User \"carol\" cannot get resource \"widgets\"`) {
			t.Fatalf("got %d %s", code, body)
		}
	})
	t.Run("denied", func(t *testing.T) {
		// kube 1.36+ (constrained impersonation on) names the first mode
		// it tried: impersonating a user for this request's verb. Once a
		// mode has served the same request, it is tried first and named:
		// a fresh server keeps the answer the same.
		url, _ := serve(t, http.HandlerFunc(echo), Config{})
		path := url + "/apis/shop.example.com/v1/namespaces/default/widgets/w1"
		code, body := do(t, http.MethodGet, path, "bob-token", "Impersonate-User", "alice")
		want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.shop.example.com \"w1\" is forbidden: User \"bob\" cannot impersonate-on:user-info:get resource \"widgets\" in API group \"shop.example.com\" in the namespace \"default\"","reason":"Forbidden","details":{"name":"w1","group":"shop.example.com","kind":"widgets"},"code":403}`
		if code != http.StatusForbidden || body != want {
			t.Fatalf("got %d %s\nwant 403 %s", code, body, want)
		}
	})
	t.Run("impersonated user is authorized", func(t *testing.T) {
		code, body := do(t, http.MethodDelete, path, "alice-token", "Impersonate-User", "bob")
		if code != http.StatusForbidden {
			t.Fatalf("bob may not delete, got %d %s", code, body)
		}
	})
}
