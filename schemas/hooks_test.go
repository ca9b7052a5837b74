package schemas

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hooked is widget with an x-specd-hooks (flow YAML) beside its
// x-specd-resource.
func hooked(name, ext, hooks string) string {
	return widget(name, ext) + "  x-specd-hooks: " + hooks + "\n"
}

const hx = "/components/schemas/Widget/x-specd-hooks"

func TestHooksDecode(t *testing.T) {
	const g = "shop.example.com"
	tests := map[string]struct {
		files map[string]string
		want  map[string]*Hooks // by version
	}{
		"defaults: Fail, 10s": {
			files: map[string]string{"v1.yaml": gv(g, "v1", hooked("Widget", "{}", "{default: p, validate: p, reconcile: c}"))},
			want: map[string]*Hooks{"v1": {Default: "p", Validate: "p", Reconcile: "c",
				FailurePolicy: FailurePolicyFail, Timeout: 10 * time.Second, File: "v1.yaml", Pointer: hx}},
		},
		"everything given": {
			files: map[string]string{"v1.yaml": gv(g, "v1", hooked("Widget", "{}", "{validate: ship-policy.v2, failurePolicy: Ignore, timeoutSeconds: 30}"))},
			want: map[string]*Hooks{"v1": {Validate: "ship-policy.v2",
				FailurePolicy: FailurePolicyIgnore, Timeout: 30 * time.Second, File: "v1.yaml", Pointer: hx}},
		},
		"default on a version that is not stored": {
			files: map[string]string{
				"v1.yaml":      gv(g, "v1", hooked("Widget", "{storage: true}", "{validate: p}")),
				"v2beta1.yaml": gv(g, "v2beta1", hooked("Widget", "{conversion: {rules: []}}", "{default: q, timeoutSeconds: 1}")),
			},
			want: map[string]*Hooks{
				"v1":      {Validate: "p", FailurePolicy: FailurePolicyFail, Timeout: 10 * time.Second, File: "v1.yaml", Pointer: hx},
				"v2beta1": {Default: "q", FailurePolicy: FailurePolicyFail, Timeout: time.Second, File: "v2beta1.yaml", Pointer: hx},
			},
		},
		"no hooks": {
			files: map[string]string{"v1.yaml": gv(g, "v1", widget("Widget", "{}"))},
			want:  map[string]*Hooks{"v1": nil},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			reg, err := LoadFS(mapFS(tt.files))
			if err != nil {
				t.Fatal(err)
			}
			res := reg.Group(g).Resource("widgets")
			got := map[string]*Hooks{}
			for _, rv := range res.Versions {
				got[rv.Version] = rv.Hooks
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hooks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHooksPlugins(t *testing.T) {
	h := &Hooks{Default: "a", Reconcile: "b", Pointer: hx}
	want := []HookBinding{
		{Hook: "default", Plugin: "a", Pointer: hx + "/default"},
		{Hook: "reconcile", Plugin: "b", Pointer: hx + "/reconcile"},
	}
	if diff := cmp.Diff(want, h.Plugins()); diff != "" {
		t.Errorf("Plugins (-want +got):\n%s", diff)
	}
}

func TestHooksProblems(t *testing.T) {
	const g = "shop.example.com"
	one := func(hooks string) map[string]string {
		return map[string]string{"v1.yaml": gv(g, "v1", hooked("Widget", "{}", hooks))}
	}
	tests := map[string]struct {
		files map[string]string
		want  []want
	}{
		"unknown field": {
			files: one("{validate: p, mutate: q}"),
			want:  []want{{"v1.yaml", hx + "/mutate", `unknown field "mutate"`}},
		},
		"not an object": {
			files: one("ship-policy"),
			want:  []want{{"v1.yaml", hx, "must be an object, not a string"}},
		},
		"bad failurePolicy": {
			files: one("{validate: p, failurePolicy: Retry}"),
			want:  []want{{"v1.yaml", hx + "/failurePolicy", `failurePolicy "Retry": must be Fail or Ignore`}},
		},
		"failurePolicy not a string": {
			files: one("{validate: p, failurePolicy: true}"),
			want:  []want{{"v1.yaml", hx + "/failurePolicy", "must be a string, not a boolean"}},
		},
		"timeout too long": {
			files: one("{validate: p, timeoutSeconds: 31}"),
			want:  []want{{"v1.yaml", hx + "/timeoutSeconds", "timeoutSeconds must be an integer from 1 to 30, not 31"}},
		},
		"timeout zero": {
			files: one("{validate: p, timeoutSeconds: 0}"),
			want:  []want{{"v1.yaml", hx + "/timeoutSeconds", "from 1 to 30, not 0"}},
		},
		"timeout fraction": {
			files: one("{validate: p, timeoutSeconds: 2.5}"),
			want:  []want{{"v1.yaml", hx + "/timeoutSeconds", "not 2.5"}},
		},
		"timeout string": {
			files: one(`{validate: p, timeoutSeconds: "10"}`),
			want:  []want{{"v1.yaml", hx + "/timeoutSeconds", "not a string"}},
		},
		"plugin name with a path": {
			files: one("{default: ../bin/p}"),
			want:  []want{{"v1.yaml", hx + "/default", `plugin name "../bin/p"`}},
		},
		"plugin name not a string": {
			files: one("{reconcile: [a]}"),
			want:  []want{{"v1.yaml", hx + "/reconcile", "must be a string, not a list"}},
		},
		"no plugin": {
			files: one("{failurePolicy: Ignore}"),
			want:  []want{{"v1.yaml", hx, "names no plugin"}},
		},
		"validate and reconcile on a version that is not stored": {
			files: map[string]string{
				"v1.yaml":      gv(g, "v1", widget("Widget", "{storage: true}")),
				"v2beta1.yaml": gv(g, "v2beta1", hooked("Widget", "{conversion: {rules: []}}", "{default: p, validate: p, reconcile: c}")),
			},
			want: []want{
				{"v2beta1.yaml", hx + "/validate", "validate may be bound only on the storage version v1 of kind Widget"},
				{"v2beta1.yaml", hx + "/reconcile", "reconcile may be bound only on the storage version v1"},
			},
		},
		"beside a schema that is not a resource": {
			files: map[string]string{"v1.yaml": gv(g, "v1", widget("Widget", "{}")+
				"Part:\n  type: object\n  x-specd-hooks: {validate: p}\n")},
			want: []want{{"v1.yaml", "/components/schemas/Part/x-specd-hooks", "belongs beside x-specd-resource"}},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			matchProblems(t, loadProblems(t, tt.files), tt.want)
		})
	}
}

// TestHooksExample: the fleet example binds the plugins the examples
// build, as docs/plugins.md says.
func TestHooksExample(t *testing.T) {
	reg, err := Load(filepath.Join(repoRoot(t), "examples", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, plural := range []string{"ships", "fleets"} {
		rv := reg.Lookup("fleet.example.com", "v1", plural)
		if rv == nil || rv.Hooks == nil {
			t.Fatalf("%s: no hooks", plural)
		}
		for _, b := range rv.Hooks.Plugins() {
			got[plural+" "+b.Hook] = b.Plugin
		}
		if rv.Hooks.FailurePolicy != FailurePolicyFail || rv.Hooks.Timeout != DefaultHookTimeout {
			t.Errorf("%s: policy %s, timeout %s", plural, rv.Hooks.FailurePolicy, rv.Hooks.Timeout)
		}
	}
	want := map[string]string{"ships default": "ship-policy", "ships validate": "ship-policy", "fleets reconcile": "fleet-controller"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
}
