package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// builtinTargets returns targets of Roles (a kind with Go types) and of
// Widgets (a custom kind), from the registry specd serve loads.
func builtinTargets(t *testing.T) (roles, widgets target) {
	t.Helper()
	reg, _, err := schemas.NewLoader("../examples/schemas", builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	roles.Version = reg.Lookup("rbac.authorization.k8s.io", "v1", "roles")
	widgets.Version = reg.Lookup("shop.example.com", "v1", "widgets")
	if roles.Version == nil || widgets.Version == nil {
		t.Fatal("roles or widgets not served")
	}
	return roles, widgets
}

// TestNegotiateProtobuf: protobuf is chosen when the client prefers it
// and the kind has Go types; never for a custom kind, the scale
// subresource, or a Table, which stays JSON; PartialObjectMetadata has a
// protobuf form for every kind.
func TestNegotiateProtobuf(t *testing.T) {
	roles, widgets := builtinTargets(t)
	scale := roles
	scale.Subresource = "scale"
	const pb = contentTypeProtobuf
	tests := map[string]struct {
		accept string
		t      target
		want   encoding
		ok     bool
	}{
		"typed client, config set":   {pb + ", */*", roles, encoding{protobuf: true}, true},
		"typed client, by default":   {pb + ",application/json", roles, encoding{protobuf: true}, true},
		"custom kind falls to */*":   {pb + ", */*", widgets, encoding{}, true},
		"custom kind, protobuf only": {pb, widgets, encoding{}, false},
		"scale has no Go type here":  {pb, scale, encoding{}, false},
		"JSON preferred":             {"application/json, " + pb, roles, encoding{}, true},
		"by q":                       {pb + ";q=0.5, application/yaml", roles, encoding{yaml: true}, true},
		"Table stays JSON": {pb + ";as=Table;g=meta.k8s.io;v=v1, application/json;as=Table;g=meta.k8s.io;v=v1",
			roles, encoding{table: true}, true},
		"PartialObjectMetadata in protobuf": {pb + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json",
			widgets, encoding{protobuf: true, meta: true}, true},
		"PartialObjectMetadataList in JSON": {"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json",
			widgets, encoding{meta: true}, true},
		"PartialObjectMetadata of another version": {"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1, application/json",
			widgets, encoding{}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Accept", tc.accept)
			got, ok := negotiate(r, tc.t, true)
			if got != tc.want || ok != tc.ok {
				t.Errorf("negotiate = %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestStatusEncoding: an error is a protobuf Status for a protobuf client
// of a built-in kind, and JSON for a custom kind or a JSON client.
func TestStatusEncoding(t *testing.T) {
	roles, widgets := builtinTargets(t)
	tests := map[string]struct {
		accept string
		t      target
		want   string
	}{
		"protobuf client, built-in kind": {contentTypeProtobuf + ", */*", roles, contentTypeProtobuf},
		"protobuf client, custom kind":   {contentTypeProtobuf + ", */*", widgets, contentTypeJSON},
		"JSON client, built-in kind":     {"application/json", roles, contentTypeJSON},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Accept", tc.accept)
			w := httptest.NewRecorder()
			writeStatus(w, withProtobufTarget(r, tc.t), notFoundStatus())
			if ct := w.Header().Get("Content-Type"); ct != tc.want {
				t.Fatalf("Content-Type %q, want %q", ct, tc.want)
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(w.Body.Bytes(), nil, nil)
			if st, ok := obj.(*metav1.Status); err != nil || !ok || st.Code != http.StatusNotFound || st.Reason != metav1.StatusReasonNotFound {
				t.Errorf("decoded %#v %v, want a 404 NotFound Status", obj, err)
			}
		})
	}
}

// TestProtobufDropsUnknownFields: a field the Go type lacks is dropped
// from a protobuf answer, as a typed client decoding JSON drops it; the
// fields it has arrive.
func TestProtobufDropsUnknownFields(t *testing.T) {
	body := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r","resourceVersion":"7"},` +
		`"rules":[{"verbs":["get"],"resources":["widgets"],"apiGroups":[""],"shade":"blue"}],"extra":{"a":1}}`
	pb, err := jsonToProtobuf([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(pb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	role, ok := obj.(*rbacv1.Role)
	if !ok || role.Name != "r" || role.ResourceVersion != "7" || role.Rules[0].Resources[0] != "widgets" {
		t.Errorf("decoded %#v", obj)
	}
}
