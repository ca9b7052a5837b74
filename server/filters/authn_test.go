package filters

import (
	"net/http"
	"slices"
	"testing"
)

// unauthorized is kube-apiserver's answer to a request it cannot
// authenticate.
const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`

func TestUnauthenticatedIs401(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{})
	tests := map[string]struct{ path, token string }{
		"no credentials":         {path: "/apis/shop.example.com/v1/namespaces/default/widgets"},
		"unknown token":          {path: "/apis/shop.example.com/v1/namespaces/default/widgets", token: "nobody"},
		"discovery":              {path: "/apis"},
		"openapi":                {path: "/openapi/v3"},
		"metrics":                {path: "/metrics"},
		"near a public path":     {path: "/healthzz"},
		"unknown token on probe": {path: "/healthz", token: "nobody"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, body := do(t, http.MethodGet, url+tc.path, tc.token)
			if code != http.StatusUnauthorized || body != unauthorized {
				t.Fatalf("got %d %s\nwant 401 %s", code, body, unauthorized)
			}
		})
	}
}

func TestPublicPathsNeedNoCredentials(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{})
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/version", "/readyz/etcd", "/livez/ping", "/version/"} {
		t.Run(path, func(t *testing.T) {
			code, body := do(t, http.MethodGet, url+path, "")
			if code != http.StatusOK {
				t.Fatalf("got %d %s", code, body)
			}
			s := decodeSeen(t, body)
			if s.User != "system:anonymous" || !slices.Equal(s.Groups, []string{"system:unauthenticated"}) {
				t.Fatalf("handler saw %+v, want system:anonymous in system:unauthenticated", s)
			}
		})
	}
}

func TestAuthenticatedUserReachesHandler(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{})
	code, body := do(t, http.MethodGet, url+"/apis/shop.example.com/v1/namespaces/default/widgets/w1", "bob-token")
	if code != http.StatusOK {
		t.Fatalf("got %d %s", code, body)
	}
	if s := decodeSeen(t, body); s.User != "bob" || !slices.Equal(s.Groups, []string{"system:authenticated"}) {
		t.Fatalf("handler saw %+v", s)
	}
}

func TestInsecureServingIsSystemUnsecured(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{Insecure: true})
	for name, token := range map[string]string{"no credentials": "", "any token": "whatever"} {
		t.Run(name, func(t *testing.T) {
			code, body := do(t, http.MethodDelete, url+"/apis/shop.example.com/v1/namespaces/default/widgets", token)
			if code != http.StatusOK {
				t.Fatalf("got %d %s", code, body)
			}
			s := decodeSeen(t, body)
			if s.User != UnsecuredUser || !slices.Equal(s.Groups, []string{"system:masters", "system:authenticated"}) {
				t.Fatalf("handler saw %+v", s)
			}
		})
	}
}

// TestConsoleLoginIsPublic: anyone may send the console a login code
// (the code is the credential); no other write under /console is public.
func TestConsoleLoginIsPublic(t *testing.T) {
	url, _ := serve(t, http.HandlerFunc(echo), Config{})
	for path, want := range map[string]int{"/console/login": http.StatusOK, "/console/other": http.StatusForbidden, "/console/login/x": http.StatusForbidden} {
		t.Run(path, func(t *testing.T) {
			if code, body := do(t, http.MethodPost, url+path, ""); code != want {
				t.Fatalf("POST %s: %d %s, want %d", path, code, body, want)
			}
		})
	}
}
