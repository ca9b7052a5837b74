package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// versionsServer serves gadgets.example.com in the versions given (file
// name -> x-specd-resource), with the groups in disable switched off.
func versionsServer(t *testing.T, exts map[string]string, disable ...string) *Server {
	t.Helper()
	fsys := fstest.MapFS{}
	for v, ext := range exts {
		fsys[v+".yaml"] = &fstest.MapFile{Data: []byte(testschemas.Gadgets(testschemas.GadgetOptions{Version: v, Resource: ext}))}
	}
	reg, err := schemas.LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if reg, err = reg.Disable(disable...); err != nil {
		t.Fatal(err)
	}
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    newFakeStore(),
		Logger:   slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:      func() time.Time { return testNow },
	})
}

func TestDeprecationWarning(t *testing.T) {
	s := versionsServer(t, map[string]string{
		"v1":       "{storage: true}",
		"v1beta1":  "{deprecated: true}",
		"v1alpha1": `{deprecated: true, deprecationWarning: "v1alpha1 \"gadgets\" go away \\ soon"}`,
	})
	const beta = `299 - "gadgets.example.com/v1beta1 Gadget is deprecated; use gadgets.example.com/v1 Gadget"`
	const alpha = `299 - "v1alpha1 \"gadgets\" go away \\ soon"`
	const ns = "/namespaces/default/gadgets"
	tests := map[string]struct {
		req  request
		code int
		want []string
	}{
		"create":                                {request{method: http.MethodPost, path: "/apis/gadgets.example.com/v1beta1" + ns, body: testschemas.Gadget("v1beta1", "g1")}, http.StatusCreated, []string{beta}},
		"list":                                  {request{path: "/apis/gadgets.example.com/v1beta1" + ns}, http.StatusOK, []string{beta}},
		"list all":                              {request{path: "/apis/gadgets.example.com/v1beta1/gadgets"}, http.StatusOK, []string{beta}},
		"get, not found":                        {request{path: "/apis/gadgets.example.com/v1beta1" + ns + "/nope"}, http.StatusNotFound, []string{beta}},
		"bad namespace":                         {request{path: "/apis/gadgets.example.com/v1beta1/namespaces/Bad_NS/gadgets"}, http.StatusBadRequest, []string{beta}},
		"method not served":                     {request{method: http.MethodPut, path: "/apis/gadgets.example.com/v1beta1" + ns}, http.StatusMethodNotAllowed, []string{beta}},
		"delete":                                {request{method: http.MethodDelete, path: "/apis/gadgets.example.com/v1beta1" + ns + "/nope"}, http.StatusNotFound, []string{beta}},
		"its own message, escaped as kube does": {request{path: "/apis/gadgets.example.com/v1alpha1" + ns}, http.StatusOK, []string{alpha}},
		"not deprecated":                        {request{path: "/apis/gadgets.example.com/v1" + ns}, http.StatusOK, nil},
		"discovery of a deprecated version":     {request{path: "/apis/gadgets.example.com/v1beta1"}, http.StatusOK, nil},
		"a path that serves nothing":            {request{path: "/apis/gadgets.example.com/v1beta1/nothings"}, http.StatusNotFound, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := serve(t, s, tc.req)
			if w.Code != tc.code {
				t.Fatalf("code %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if got := w.Header().Values("Warning"); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Warning headers %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDiscoveryOfVersions(t *testing.T) {
	tests := map[string]struct {
		exts    map[string]string
		disable []string
		// want is the group in /apis ("" for absent), served is every
		// version with /apis/G/V, its resources and its OpenAPI.
		want   string
		served []string
		hidden []string
	}{
		"stable, then beta, then alpha": {
			exts: map[string]string{"v1alpha1": "{}", "v2beta1": "{}", "v1": "{storage: true}", "v1beta2": "{}", "v10alpha1": "{}"},
			want: `{"name":"gadgets.example.com","versions":[
				{"groupVersion":"gadgets.example.com/v1","version":"v1"},
				{"groupVersion":"gadgets.example.com/v2beta1","version":"v2beta1"},
				{"groupVersion":"gadgets.example.com/v1beta2","version":"v1beta2"},
				{"groupVersion":"gadgets.example.com/v10alpha1","version":"v10alpha1"},
				{"groupVersion":"gadgets.example.com/v1alpha1","version":"v1alpha1"}],
				"preferredVersion":{"groupVersion":"gadgets.example.com/v1","version":"v1"}}`,
			served: []string{"v1", "v2beta1", "v1beta2", "v10alpha1", "v1alpha1"},
		},
		"beta is preferred without a stable version": {
			exts: map[string]string{"v1alpha1": "{storage: true}", "v1beta1": "{}"},
			want: `{"name":"gadgets.example.com","versions":[
				{"groupVersion":"gadgets.example.com/v1beta1","version":"v1beta1"},
				{"groupVersion":"gadgets.example.com/v1alpha1","version":"v1alpha1"}],
				"preferredVersion":{"groupVersion":"gadgets.example.com/v1beta1","version":"v1beta1"}}`,
			served: []string{"v1beta1", "v1alpha1"},
		},
		"served: false hides a version, storage or not": {
			exts: map[string]string{"v2": "{served: false}", "v1": "{storage: true, served: false}", "v1beta1": "{}"},
			want: `{"name":"gadgets.example.com","versions":[
				{"groupVersion":"gadgets.example.com/v1beta1","version":"v1beta1"}],
				"preferredVersion":{"groupVersion":"gadgets.example.com/v1beta1","version":"v1beta1"}}`,
			served: []string{"v1beta1"},
			hidden: []string{"v2", "v1"},
		},
		"a disabled group version": {
			exts:    map[string]string{"v2": "{}", "v1": "{storage: true}"},
			disable: []string{"gadgets.example.com/v2"},
			want: `{"name":"gadgets.example.com","versions":[
				{"groupVersion":"gadgets.example.com/v1","version":"v1"}],
				"preferredVersion":{"groupVersion":"gadgets.example.com/v1","version":"v1"}}`,
			served: []string{"v1"},
			hidden: []string{"v2"},
		},
		"a disabled group": {
			exts:    map[string]string{"v2": "{}", "v1": "{storage: true}"},
			disable: []string{"gadgets.example.com"},
			hidden:  []string{"v2", "v1"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := versionsServer(t, tc.exts, tc.disable...)
			checkGroupDiscovery(t, s, tc.want)
			checkAggregated(t, s, tc.served)
			for _, v := range tc.served {
				for _, p := range []string{"/apis/gadgets.example.com/" + v, "/apis/gadgets.example.com/" + v + "/gadgets", "/openapi/v3/apis/gadgets.example.com/" + v} {
					if w := serve(t, s, request{path: p}); w.Code != http.StatusOK {
						t.Errorf("%s: code %d, want 200", p, w.Code)
					}
				}
			}
			for _, v := range tc.hidden {
				for _, p := range []string{"/apis/gadgets.example.com/" + v, "/apis/gadgets.example.com/" + v + "/gadgets",
					"/apis/gadgets.example.com/" + v + "/namespaces/default/gadgets/g1", "/openapi/v3/apis/gadgets.example.com/" + v} {
					if w := serve(t, s, request{path: p}); w.Code != http.StatusNotFound {
						t.Errorf("%s: code %d, want 404", p, w.Code)
					}
				}
			}
			index := serve(t, s, request{path: "/openapi/v3"}).Body.String()
			for _, v := range tc.hidden {
				if strings.Contains(index, `"apis/gadgets.example.com/`+v+`"`) {
					t.Errorf("/openapi/v3 lists hidden version %s: %s", v, index)
				}
			}
		})
	}
}

// checkGroupDiscovery compares the group in /apis and /apis/G with want
// ("" for a group that must not be there).
func checkGroupDiscovery(t *testing.T, s *Server, want string) {
	t.Helper()
	apis := serve(t, s, request{path: "/apis"})
	group := serve(t, s, request{path: "/apis/gadgets.example.com"})
	if want == "" {
		jsonEqual(t, "/apis", json.RawMessage(apis.Body.Bytes()), `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
		if group.Code != http.StatusNotFound {
			t.Errorf("/apis/gadgets.example.com: code %d, want 404", group.Code)
		}
		return
	}
	jsonEqual(t, "/apis", json.RawMessage(apis.Body.Bytes()), `{"kind":"APIGroupList","apiVersion":"v1","groups":[`+want+`]}`)
	jsonEqual(t, "/apis/G", json.RawMessage(group.Body.Bytes()), `{"kind":"APIGroup","apiVersion":"v1",`+strings.TrimPrefix(want, "{"))
}

// checkAggregated checks the versions of the aggregated discovery, in order.
func checkAggregated(t *testing.T, s *Server, served []string) {
	t.Helper()
	w := serve(t, s, request{path: "/apis", headers: map[string]string{"Accept": kubectlDiscoveryAccept}})
	var l struct {
		Items []struct {
			Versions []struct {
				Version   string
				Resources []struct{ Resource string }
			}
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, item := range l.Items {
		for _, v := range item.Versions {
			got = append(got, v.Version)
			if len(v.Resources) != 1 || v.Resources[0].Resource != "gadgets" {
				t.Errorf("aggregated %s: resources %+v", v.Version, v.Resources)
			}
		}
	}
	if strings.Join(got, ",") != strings.Join(served, ",") {
		t.Errorf("aggregated versions %v, want %v", got, served)
	}
}
