package builtin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/serving"
)

const coreFile = "builtin/core/v1.yaml"

// TestCoreResources: the core group and coordination.k8s.io carry kube's
// discovery names and scopes.
func TestCoreResources(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		group, kind string
		scope       schemas.Scope
		shortNames  []string
		status      bool
	}{
		"namespaces": {"", "Namespace", schemas.Cluster, []string{"ns"}, true},
		"configmaps": {"", "ConfigMap", schemas.Namespaced, []string{"cm"}, false},
		"secrets":    {"", "Secret", schemas.Namespaced, nil, false},
		"events":     {"", "Event", schemas.Namespaced, []string{"ev"}, false},
		"leases":     {"coordination.k8s.io", "Lease", schemas.Namespaced, nil, false},
	}
	for plural, want := range tests {
		t.Run(plural, func(t *testing.T) {
			rv := reg.Lookup(want.group, "v1", plural)
			if rv == nil {
				t.Fatalf("%q v1 %s is not served", want.group, plural)
			}
			res := rv.Resource
			if res.Kind != want.kind || res.Scope != want.scope || !slices.Equal(res.ShortNames, want.shortNames) ||
				res.Singular != strings.ToLower(want.kind) || len(res.Categories) != 0 {
				t.Errorf("got %s %s %v %s %v, want %s %s %v", res.Kind, res.Scope, res.ShortNames, res.Singular, res.Categories, want.kind, want.scope, want.shortNames)
			}
			if rv.StatusSubresource != want.status || !rv.Storage {
				t.Errorf("status subresource %v, storage %v; want %v, true", rv.StatusSubresource, rv.Storage, want.status)
			}
			if reg.Resource(res.GroupResource()) != res {
				t.Errorf("Registry.Resource(%q) does not find it", res.GroupResource())
			}
		})
	}
	if got := reg.Lookup("", "v1", "configmaps").APIVersion(); got != "v1" {
		t.Errorf("apiVersion %q, want v1", got)
	}
	if rv := reg.Lookup("", "v1", "configmaps"); rv.File != coreFile {
		t.Errorf("declared by %s, want %s", rv.File, coreFile)
	}
}

// TestCoreObjects validates objects as client-go sends them (k8s.io/api's
// types, encoded as its clients encode them) against the compiled schemas:
// defaulting drops the nulls of unset times, nothing is pruned, and what
// kube's OpenAPI refuses fails at the field kube names.
func TestCoreObjects(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	micro := metav1.NewMicroTime(time.Date(2026, 11, 25, 16, 27, 31, 123456000, time.UTC))
	now := metav1.NewTime(micro.Time.Truncate(time.Second))
	tests := map[string]struct {
		group, plural string
		object        any
		wantErr       string // "" when valid
	}{
		"namespace": {"", "namespaces", &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}},
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating, Conditions: []corev1.NamespaceCondition{{
				Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionTrue, LastTransitionTime: now, Reason: "R", Message: "m"}}}}, ""},
		"namespace in an unknown phase": {"", "namespaces", &corev1.Namespace{Status: corev1.NamespaceStatus{Phase: "Gone"}}, "status.phase"},
		"config map": {"", "configmaps", &corev1.ConfigMap{Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"bin": {0, 1, 2}},
			Immutable: ptr.To(true)}, ""},
		"secret": {"", "secrets", &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("v")},
			StringData: map[string]string{"s": "plain"}, Immutable: ptr.To(false)}, ""},
		"secret data not base64": {"", "secrets", map[string]any{"data": map[string]any{"k": "not base64!"}}, "data.k"},
		"event": {"", "events", &corev1.Event{
			InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "ns", Name: "x", UID: "u", APIVersion: "v1", ResourceVersion: "7", FieldPath: "data"},
			Reason:         "Scaled", Message: "scaled to 3", Source: corev1.EventSource{Component: "c", Host: "h"},
			FirstTimestamp: now, LastTimestamp: now, Count: 2, Type: corev1.EventTypeNormal, EventTime: micro,
			Series: &corev1.EventSeries{Count: 2, LastObservedTime: micro}, Action: "Scale",
			Related: &corev1.ObjectReference{Kind: "Lease", Name: "l"}, ReportingController: "ctrl", ReportingInstance: "ctrl-1"}, ""},
		"new-style event, no timestamps": {"", "events", &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Name: "x"},
			EventTime: micro, ReportingController: "ctrl", ReportingInstance: "ctrl-1"}, ""},
		"event without involvedObject": {"", "events", map[string]any{"reason": "R"}, "involvedObject"},
		"event with a bad time":        {"", "events", map[string]any{"involvedObject": map[string]any{}, "lastTimestamp": "yesterday"}, "lastTimestamp"},
		"lease, as client-go's leader election writes it": {"coordination.k8s.io", "leases", &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("me_1"), LeaseDurationSeconds: ptr.To[int32](15), AcquireTime: &micro, RenewTime: &micro,
			LeaseTransitions: ptr.To[int32](1), Strategy: ptr.To(coordinationv1.OldestEmulationVersion), PreferredHolder: ptr.To("you")}}, ""},
		"lease with a duration too big": {"coordination.k8s.io", "leases", map[string]any{"spec": map[string]any{"leaseDurationSeconds": int64(1) << 40}}, "leaseDurationSeconds"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rv := reg.Lookup(tc.group, "v1", tc.plural)
			obj := decode(t, tc.object)
			delete(obj, "metadata") // the engine's part
			rv.Schema.Default(obj)
			if pruned := rv.Schema.Prune(obj); len(pruned) > 0 {
				t.Errorf("fields pruned: %v", pruned)
			}
			errs := rv.Schema.Validate(obj)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tc.wantErr != "" && !strings.Contains(fmt.Sprint(errs), tc.wantErr):
				t.Errorf("errors %v do not name %q", errs, tc.wantErr)
			}
		})
	}
}

func decode(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestSecretTypeDefaultsToOpaque, as kube's defaulting does.
func TestSecretTypeDefaultsToOpaque(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	reg.Lookup("", "v1", "secrets").Schema.Default(obj)
	if obj["type"] != "Opaque" {
		t.Errorf("type %v, want Opaque", obj["type"])
	}
}

// TestUserFileCannotDeclareCoreGroup: the problem names the user's file
// and the built-in file that declares the group.
func TestUserFileCannotDeclareCoreGroup(t *testing.T) {
	for group, declaredBy := range map[string]string{`""`: coreFile, "coordination.k8s.io": "builtin/coordination.k8s.io/v1.yaml"} {
		t.Run(group, func(t *testing.T) {
			dir := t.TempDir()
			mine := strings.Replace(testschemas.Tools, "group: tools.example.com", "group: "+group, 1)
			testschemas.WriteFiles(t, dir, map[string]string{"mine.yaml": mine})
			_, _, err := schemas.NewLoader(dir, builtin.Schemas()).Load()
			var le *schemas.LoadError
			if !errors.As(err, &le) || len(le.Problems) != 1 {
				t.Fatalf("got %v, want one problem", err)
			}
			if p := le.Problems[0]; p.File != filepath.Join(dir, "mine.yaml") || !strings.Contains(p.Message, declaredBy) {
				t.Errorf("problem %s: want mine.yaml, naming %s", p, declaredBy)
			}
		})
	}
}

// TestDirectoryCannotDeclareCoreGroup: without built-in files (specd
// check of a directory), the core group is refused too.
func TestDirectoryCannotDeclareCoreGroup(t *testing.T) {
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, map[string]string{"mine.yaml": strings.Replace(testschemas.Tools, "group: tools.example.com", `group: ""`, 1)})
	_, err := schemas.Load(dir)
	if err == nil || !strings.Contains(err.Error(), `group "" is built into specd`) {
		t.Errorf("got %v, want the core group refused", err)
	}
}

// TestServingDisablesBuiltins: the core group (named api, as
// --runtime-config does), one of its resources, and Leases may be
// switched off; their neighbours stay.
func TestServingDisablesBuiltins(t *testing.T) {
	tests := map[string]struct {
		disable []string
		off, on []string // group/version/plural
	}{
		"core group":     {[]string{"api"}, []string{"/v1/namespaces", "/v1/events"}, []string{"coordination.k8s.io/v1/leases"}},
		"core version":   {[]string{"api/v1"}, []string{"/v1/configmaps"}, []string{"rbac.authorization.k8s.io/v1/roles"}},
		"core resource":  {[]string{"api/v1/events"}, []string{"/v1/events"}, []string{"/v1/configmaps", "/v1/namespaces"}},
		"leases' group":  {[]string{"coordination.k8s.io"}, []string{"coordination.k8s.io/v1/leases"}, []string{"/v1/secrets"}},
		"leases version": {[]string{"coordination.k8s.io/v1/leases"}, []string{"coordination.k8s.io/v1/leases"}, []string{"/v1/secrets"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := serving.Config{Dir: t.TempDir(), Builtin: []schemas.Builtin{builtin.Schemas()}, Disable: tc.disable}
			set, err := serving.New(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			for _, want := range []struct {
				paths  []string
				served bool
			}{{tc.off, false}, {tc.on, true}} {
				for _, p := range want.paths {
					parts := strings.Split(p, "/")
					if got := set.Registry().Lookup(parts[0], parts[1], parts[2]) != nil; got != want.served {
						t.Errorf("%s served %v, want %v", p, got, want.served)
					}
				}
			}
		})
	}
}
