package server

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRoutes(t *testing.T) {
	const ns = "/apis/shop.example.com/v1/namespaces/default"
	tests := map[string]struct {
		req      request
		code     int
		reason   metav1.StatusReason // for Status answers
		verb     string              // the store call, if any
		resource string
		ns, name string
	}{
		"get namespaced":          {req: request{path: ns + "/widgets/w1"}, code: 200, verb: "get", resource: "widgets.shop.example.com/v1", ns: "default", name: "w1"},
		"get status":              {req: request{path: ns + "/widgets/w1/status"}, code: 200, verb: "get", ns: "default", name: "w1"},
		"get cluster-scoped":      {req: request{path: "/apis/shop.example.com/v1/warehouses/north"}, code: 200, verb: "get", name: "north"},
		"list namespaced":         {req: request{path: ns + "/widgets"}, code: 200, verb: "list", ns: "default"},
		"list all namespaces":     {req: request{path: "/apis/shop.example.com/v1/widgets"}, code: 200, verb: "list"},
		"list cluster-scoped":     {req: request{path: "/apis/shop.example.com/v1/warehouses"}, code: 200, verb: "list"},
		"list other group's Book": {req: request{path: "/apis/library.example.com/v1beta1/namespaces/default/books"}, code: 200, verb: "list", resource: "books.library.example.com/v1beta1", ns: "default"},
		"get missing object":      {req: request{path: ns + "/widgets/nope"}, code: 404, reason: metav1.StatusReasonNotFound, verb: "get", ns: "default"},
		"delete":                  {req: request{method: "DELETE", path: ns + "/widgets/w1"}, code: 200, verb: "delete", ns: "default", name: "w1"},
		"create":                  {req: request{method: "POST", path: ns + "/widgets", body: `{"metadata":{"name":"w2"}}`}, code: 201, verb: "create", ns: "default", name: "w2"},
		"create cluster-scoped":   {req: request{method: "POST", path: "/apis/shop.example.com/v1/warehouses", body: `{"metadata":{"name":"south"}}`}, code: 201, verb: "create", name: "south"},
		"update":                  {req: request{method: "PUT", path: ns + "/widgets/w1", body: `{"metadata":{"name":"w1"}}`}, code: 200, verb: "update", ns: "default", name: "w1"},

		"unknown group":                       {req: request{path: "/apis/nope.example.com/v1/namespaces/default/widgets"}, code: 404, reason: metav1.StatusReasonNotFound},
		"unknown version":                     {req: request{path: "/apis/shop.example.com/v9/namespaces/default/widgets"}, code: 404, reason: metav1.StatusReasonNotFound},
		"unknown resource":                    {req: request{path: ns + "/gadgets"}, code: 404, reason: metav1.StatusReasonNotFound},
		"unknown subresource":                 {req: request{path: ns + "/widgets/w1/scale"}, code: 404, reason: metav1.StatusReasonNotFound},
		"status without subresource":          {req: request{path: "/apis/shop.example.com/v1/warehouses/north/status"}, code: 404, reason: metav1.StatusReasonNotFound},
		"cluster-scoped in namespace":         {req: request{path: ns + "/warehouses/north"}, code: 404, reason: metav1.StatusReasonNotFound},
		"namespaced object without namespace": {req: request{path: "/apis/shop.example.com/v1/widgets/w1"}, code: 404, reason: metav1.StatusReasonNotFound},
		"unknown top-level path":              {req: request{path: "/nope"}, code: 404, reason: metav1.StatusReasonNotFound},
		"trailing segments":                   {req: request{path: ns + "/widgets/w1/status/x"}, code: 404, reason: metav1.StatusReasonNotFound},

		"POST on an object":        {req: request{method: "POST", path: ns + "/widgets/w1", body: "{}"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"PUT on a collection":      {req: request{method: "PUT", path: ns + "/widgets", body: "{}"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"DELETE on a collection":   {req: request{method: "DELETE", path: ns + "/widgets"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"POST across namespaces":   {req: request{method: "POST", path: "/apis/shop.example.com/v1/widgets", body: "{}"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"POST on status":           {req: request{method: "POST", path: ns + "/widgets/w1/status", body: "{}"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"DELETE on status":         {req: request{method: "DELETE", path: ns + "/widgets/w1/status"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"watch (not yet)":          {req: request{path: ns + "/widgets?watch=true"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"POST on discovery":        {req: request{method: "POST", path: "/apis", body: "{}"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"DELETE on version":        {req: request{method: "DELETE", path: "/version"}, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		"merge patch":              {req: request{method: "PATCH", path: ns + "/widgets/w1", headers: map[string]string{"Content-Type": "application/merge-patch+json"}, body: "{}"}, code: 200, verb: "patch", ns: "default", name: "w1"},
		"strategic merge patch":    {req: request{method: "PATCH", path: ns + "/widgets/w1", headers: map[string]string{"Content-Type": "application/strategic-merge-patch+json"}, body: "{}"}, code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		"invalid namespace":        {req: request{path: "/apis/shop.example.com/v1/namespaces/Bad_NS/widgets"}, code: 400, reason: metav1.StatusReasonBadRequest},
		"invalid name":             {req: request{path: ns + "/widgets/a%25b"}, code: 400, reason: metav1.StatusReasonBadRequest},
		"dot name":                 {req: request{path: ns + "/widgets/.."}, code: 400, reason: metav1.StatusReasonBadRequest},
		"bad limit":                {req: request{path: ns + "/widgets?limit=x"}, code: 400, reason: metav1.StatusReasonBadRequest},
		"label selector is parsed": {req: request{path: ns + "/widgets?labelSelector=a%3Db"}, code: 200, verb: "list", ns: "default"},
		"bad label selector":       {req: request{path: ns + "/widgets?labelSelector=a+in+(b"}, code: 400, reason: metav1.StatusReasonBadRequest},
		"unsupported field":        {req: request{path: ns + "/widgets?fieldSelector=spec.size%3D3"}, code: 400, reason: metav1.StatusReasonBadRequest},
		"bad fieldValidation":      {req: request{method: "POST", path: ns + "/widgets?fieldValidation=Loud", body: "{}"}, code: 422, reason: metav1.StatusReasonInvalid},
		"bad dryRun":               {req: request{method: "POST", path: ns + "/widgets?dryRun=Some", body: "{}"}, code: 422, reason: metav1.StatusReasonInvalid},
		"bad dryRun on delete":     {req: request{method: "DELETE", path: ns + "/widgets/w1?dryRun=Some"}, code: 422, reason: metav1.StatusReasonInvalid},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			store := seeded(t)
			w := serve(t, newTestServer(t, store), tc.req)
			if w.Code != tc.code {
				t.Fatalf("code = %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			if tc.reason != "" {
				if st := decodeStatus(t, w); st.Reason != tc.reason {
					t.Fatalf("reason = %q, want %q; body %s", st.Reason, tc.reason, w.Body)
				}
			}
			got := store.last()
			if tc.verb == "" {
				if tc.code >= 400 && tc.code != 404 && got.verb != "" {
					t.Fatalf("store called (%s) on a refused request", got.verb)
				}
				return
			}
			if got.verb != tc.verb {
				t.Fatalf("store verb = %q, want %q", got.verb, tc.verb)
			}
			if tc.resource != "" && got.resource != tc.resource {
				t.Errorf("resource = %q, want %q", got.resource, tc.resource)
			}
			if got.namespace != tc.ns {
				t.Errorf("namespace = %q, want %q", got.namespace, tc.ns)
			}
			if tc.name != "" && got.name != tc.name {
				t.Errorf("name = %q, want %q", got.name, tc.name)
			}
		})
	}
}

func TestRefusedRequestsDoNotReachTheStore(t *testing.T) {
	for _, req := range []request{
		{method: "POST", path: "/apis/shop.example.com/v1/namespaces/default/widgets?dryRun=x", body: "{}"},
		{method: "POST", path: "/apis/shop.example.com/v1/namespaces/default/widgets", headers: map[string]string{"Content-Type": "text/plain"}, body: "{}"},
		{method: "PUT", path: "/apis/shop.example.com/v1/namespaces/default/widgets/w1", body: ""},
		{path: "/apis/shop.example.com/v1/namespaces/default/widgets", headers: map[string]string{"Accept": "text/html"}},
	} {
		store := newFakeStore()
		w := serve(t, newTestServer(t, store), req)
		if w.Code < 400 || len(store.calls) != 0 {
			t.Errorf("%s %s: code %d, store calls %v", req.method, req.path, w.Code, store.calls)
		}
	}
}

func TestWriteOptionsReachTheStore(t *testing.T) {
	store := newFakeStore()
	s := newTestServer(t, store)
	w := serve(t, s, request{method: "POST", path: "/apis/shop.example.com/v1/namespaces/default/widgets?fieldValidation=Strict&dryRun=All", body: widgetW1})
	if w.Code != http.StatusCreated {
		t.Fatalf("code %d: %s", w.Code, w.Body)
	}
	if got := store.last().write; got.FieldValidation != "Strict" || !got.DryRun {
		t.Errorf("write options = %+v", got)
	}
	w = serve(t, s, request{path: "/apis/shop.example.com/v1/namespaces/default/widgets?limit=2&continue=abc"})
	if got := store.last().list; w.Code != 200 || got.Limit != 2 || got.Continue != "abc" {
		t.Errorf("list request = %+v (code %d)", got, w.Code)
	}
	w = serve(t, s, request{method: "DELETE", path: "/apis/shop.example.com/v1/namespaces/default/widgets/w1",
		headers: map[string]string{"Content-Type": "application/json"},
		body:    `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"preconditions":{"uid":"u-1","resourceVersion":"7"}}`})
	if got := store.last().del; got.UID != "u-1" || got.ResourceVersion != "7" || !got.DryRun {
		t.Errorf("delete options = %+v (code %d: %s)", got, w.Code, w.Body)
	}
}

func TestInvalidOptionsStatus(t *testing.T) {
	w := serve(t, newTestServer(t, newFakeStore()), request{method: "POST",
		path: "/apis/shop.example.com/v1/namespaces/default/widgets?fieldValidation=Loud", body: "{}"})
	st := decodeStatus(t, w)
	if st.Details == nil || st.Details.Kind != "CreateOptions" || st.Details.Group != "meta.k8s.io" ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "fieldValidation" {
		t.Errorf("status = %s", w.Body)
	}
	if !strings.Contains(st.Message, `Unsupported value: "Loud"`) {
		t.Errorf("message = %q", st.Message)
	}
}

func TestSplitResourcePath(t *testing.T) {
	tests := map[string]struct {
		want resourcePath
		ok   bool
	}{
		"/api/v1/namespaces":                        {resourcePath{"", "v1", "namespaces"}, true},
		"/apis/shop.example.com/v1/widgets":         {resourcePath{"shop.example.com", "v1", "widgets"}, true},
		"/apis/shop.example.com/v1/namespaces/a/b/": {resourcePath{"shop.example.com", "v1", "namespaces/a/b/"}, true},
		"/api/v1":                              {ok: false}, // discovery
		"/api/v1/":                             {ok: false},
		"/apis/shop.example.com/v1/":           {ok: false},
		"/apis/shop.example.com":               {ok: false},
		"/apis//v1/widgets":                    {ok: false},
		"/api//widgets":                        {ok: false},
		"/apis":                                {ok: false},
		"/openapi/v3/apis/shop.example.com/v1": {ok: false},
		"/version":                             {ok: false},
	}
	for path, tt := range tests {
		got, ok := splitResourcePath(path)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("splitResourcePath(%q) = %+v, %v; want %+v, %v", path, got, ok, tt.want, tt.ok)
		}
	}
}
