package server

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

const rolesPath = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"

// benchRole is a Role as the engine stores it, managed fields included
// (about 900 bytes of JSON).
func benchRole(i int) string {
	return fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"creationTimestamp":"2026-11-21T10:19:21Z","labels":{"team":"shop"},"managedFields":[{"apiVersion":"rbac.authorization.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:team":{}}},"f:rules":{}},"manager":"kubectl-create","operation":"Update","time":"2026-11-21T10:19:21Z"}],"name":"role-%05d","namespace":"default","resourceVersion":"%d","uid":"56076233-20be-46bc-883c-19b9d79%05d"},"rules":[{"apiGroups":["shop.example.com"],"resources":["widgets","widgets/status"],"verbs":["get","list","watch"]},{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["shop-config"],"verbs":["get"]}]}`, i, 100+i, i)
}

// rolesServer serves n Roles from constStore with the built-in schemas.
func rolesServer(b *testing.B, n int) *Server {
	b.Helper()
	reg, _, err := schemas.NewLoader("../examples/schemas", builtin.Schemas()).Load()
	if err != nil {
		b.Fatal(err)
	}
	items := make([]string, n)
	for i := range items {
		items[i] = benchRole(i)
	}
	// In the engine's order: kind after the items.
	list := `{"apiVersion":"rbac.authorization.k8s.io/v1","items":[` + strings.Join(items, ",") +
		`],"kind":"RoleList","metadata":{"continue":"","resourceVersion":"99999"}}`
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    constStore{object: []byte(benchRole(1)), list: []byte(list)},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
}

// answerSize is the size of the body served for path and accept.
func answerSize(b *testing.B, s *Server, path, accept string) float64 {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Accept", accept)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", accept, w.Code, w.Body)
	}
	return float64(w.Body.Len())
}

// benchEncodings runs one read of path in JSON and in protobuf, as
// client-go's typed clients ask for it.
func benchEncodings(b *testing.B, s *Server, path string) {
	for _, accept := range []string{"application/json", contentTypeProtobuf + ", */*"} {
		name, _, _ := strings.Cut(accept, ",")
		b.Run(strings.TrimPrefix(name, "application/"), func(b *testing.B) {
			size := answerSize(b, s, path, accept)
			benchRequest(b, s, path, accept)
			b.ReportMetric(size, "B/answer")
		})
	}
}

// BenchmarkListRolesProtobuf: a list of 10,000 Roles; JSON is the stored
// bytes joined, protobuf decodes each item once into its Go type.
func BenchmarkListRolesProtobuf(b *testing.B) {
	benchEncodings(b, rolesServer(b, 10000), rolesPath)
}

// BenchmarkGetRoleProtobuf: one Role.
func BenchmarkGetRoleProtobuf(b *testing.B) {
	benchEncodings(b, rolesServer(b, 1), rolesPath+"/role-00001")
}
