package configdata_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/configdata"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// env is a real Store on etcd with configdata's hooks, serving the
// built-in Secrets and ConfigMaps.
type env struct {
	store               *engine.Store
	secrets, configMaps *schemas.ResourceVersion
}

func newEnv(t *testing.T) *env {
	t.Helper()
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{
		Mutators: configdata.Mutators(), WriteChecks: configdata.WriteChecks()})
	reg := builtins(t)
	return &env{store: store, secrets: reg.Lookup("", "v1", "secrets"), configMaps: reg.Lookup("", "v1", "configmaps")}
}

func (e *env) create(rv *schemas.ResourceVersion, body string) (engine.Result, error) {
	return e.store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{FieldManager: "test"}})
}

func (e *env) get(t *testing.T, rv *schemas.ResourceVersion, name string) []byte {
	t.Helper()
	obj, err := e.store.Get(context.Background(), engine.Ref{Version: rv, Namespace: "default", Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func (e *env) patch(rv *schemas.ResourceVersion, name string, pt engine.PatchType, patch string) (engine.PatchResult, error) {
	return e.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: name}, Type: pt, Patch: []byte(patch), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "test"}}})

}

// TestSecretStringData: stringData is merged into data on create, update,
// patch and apply, and is never stored or answered.
func TestSecretStringData(t *testing.T) {
	e := newEnv(t)
	res, err := e.create(e.secrets, secret("s", `"data":{"a":"eA==","k":"eQ=="},"stringData":{"a":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range [][]byte{res.Object, e.get(t, e.secrets, "s")} {
		wantFields(t, obj, map[string]string{"data.a": "Yg==", "data.k": "eQ==", "type": "Opaque", "stringData": ""})
	}
	p, err := e.patch(e.secrets, "s", engine.MergePatchType, `{"stringData":{"k":"z"}}`)
	if err != nil {
		t.Fatal(err)
	}
	wantFields(t, p.Object, map[string]string{"data.a": "Yg==", "data.k": "eg==", "stringData": ""})

	apply := "apiVersion: " + e.secrets.APIVersion() + "\nkind: Secret\nmetadata:\n  name: t\nstringData:\n  user: admin\n"
	for range 2 {
		if p, err = e.patch(e.secrets, "t", engine.ApplyPatchType, apply); err != nil {
			t.Fatal(err)
		}
		wantFields(t, e.get(t, e.secrets, "t"), map[string]string{"data.user": "YWRtaW4=", "type": "Opaque", "stringData": ""})
	}
	if got := gjson.GetBytes(p.Object, `metadata.managedFields.#(manager=="test").fieldsV1`).Raw; got != `{"f:stringData":{"f:user":{}}}` {
		t.Errorf("apply's managed fields = %s", got)
	}
	// As in kube (kubernetes#108008), a key the apply no longer sets in
	// stringData stays in data: no manager owns it there.
	renamed := strings.Replace(apply, "user:", "login:", 1)
	if _, err = e.patch(e.secrets, "t", engine.ApplyPatchType, renamed); err != nil {
		t.Fatal(err)
	}
	wantFields(t, e.get(t, e.secrets, "t"), map[string]string{"data.user": "YWRtaW4=", "data.login": "YWRtaW4="})
}

// TestSecretRefusals: a bad write is refused with kube's answer and
// nothing is stored.
func TestSecretRefusals(t *testing.T) {
	e := newEnv(t)
	_, err := e.create(e.secrets, secret("bad", `"data":{"a":"YWJj!"}`))
	if !apierrors.IsBadRequest(err) || err.Error() != `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4` {
		t.Fatalf("bad base64: %v", err)
	}
	if _, err := e.store.Get(context.Background(), engine.Ref{Version: e.secrets, Namespace: "default", Name: "bad"}); !apierrors.IsNotFound(err) {
		t.Fatalf("refused secret stored: %v", err)
	}
	if _, err := e.create(e.secrets, secret("tls", `"type":"kubernetes.io/tls","stringData":{"tls.crt":"c","tls.key":"k"}`)); err != nil {
		t.Fatal(err)
	}
	_, err = e.patch(e.secrets, "tls", engine.MergePatchType, `{"type":"Opaque"}`)
	if !apierrors.IsInvalid(err) || err.Error() != `Secret "tls" is invalid: type: Invalid value: "Opaque": field is immutable` {
		t.Fatalf("type change: %v", err)
	}
	_, err = e.create(e.secrets, secret("cfg", `"type":"kubernetes.io/dockerconfigjson"`))
	if !apierrors.IsInvalid(err) || err.Error() != `Secret "cfg" is invalid: data[.dockerconfigjson]: Required value` {
		t.Fatalf("dockerconfigjson without its key: %v", err)
	}
}

// TestImmutable: once immutable, data may not change and immutable may
// not be unset, while metadata may.
func TestImmutable(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		rv         *schemas.ResourceVersion
		body, edit string
	}{
		{e.secrets, secret("s", `"immutable":true,"data":{"a":"YQ=="}`), `{"stringData":{"a":"b"}}`},
		{e.configMaps, configMap("c", `"immutable":true,"data":{"a":"x"}`), `{"data":{"a":"y"}}`},
	} {
		res, err := e.create(tc.rv, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		name := gjson.GetBytes(res.Object, "metadata.name").String()
		kind := tc.rv.Resource.Kind
		_, err = e.patch(tc.rv, name, engine.MergePatchType, tc.edit)
		if want := fmt.Sprintf("%s %q is invalid: data: Forbidden: field is immutable when `immutable` is set", kind, name); err == nil || err.Error() != want {
			t.Errorf("data edit: %v, want %s", err, want)
		}
		_, err = e.patch(tc.rv, name, engine.MergePatchType, `{"immutable":null}`)
		if want := fmt.Sprintf("%s %q is invalid: immutable: Forbidden: field is immutable when `immutable` is set", kind, name); err == nil || err.Error() != want {
			t.Errorf("immutable unset: %v, want %s", err, want)
		}
		if _, err := e.patch(tc.rv, name, engine.MergePatchType, `{"metadata":{"labels":{"x":"y"}}}`); err != nil {
			t.Errorf("%s label: %v", kind, err)
		}
		if got := e.get(t, tc.rv, name); gjson.GetBytes(got, "metadata.labels.x").String() != "y" || gjson.GetBytes(got, "data.a").String() != gjson.GetBytes(res.Object, "data.a").String() {
			t.Errorf("stored %s", got)
		}
	}
}

// TestConfigMapRefusals: kube's answers to a bad ConfigMap.
func TestConfigMapRefusals(t *testing.T) {
	e := newEnv(t)
	_, err := e.create(e.configMaps, configMap("c", `"binaryData":{"a":"Y*=="}`))
	if !apierrors.IsBadRequest(err) || err.Error() != `ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 1` {
		t.Fatalf("bad base64: %v", err)
	}
	_, err = e.create(e.configMaps, configMap("c", `"data":{"a":"x"},"binaryData":{"a":"YQ=="}`))
	if !apierrors.IsInvalid(err) || err.Error() != `ConfigMap "c" is invalid: data[a]: Invalid value: "a": duplicate of key present in binaryData` {
		t.Fatalf("key in both: %v", err)
	}
}

func secret(name, fields string) string {
	return object("Secret", name, fields)
}

func configMap(name, fields string) string {
	return object("ConfigMap", name, fields)
}

func object(kind, name, fields string) string {
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q},%s}`, apiVersion, kind, name, fields)
}

// wantFields requires each gjson path of want to hold its value; "" is
// a path that must not exist.
func wantFields(tb testing.TB, obj []byte, want map[string]string) {
	tb.Helper()
	for path, v := range want {
		got := gjson.GetBytes(obj, path)
		if v == "" && got.Exists() || v != "" && got.String() != v {
			tb.Errorf("%s = %s, want %q in %s", path, got.Raw, v, obj)
		}
	}
}

// apiVersion is the core group's.
const apiVersion = "v1"

// builtins loads specd's built-in schemas, core/v1 among them.
func builtins(tb testing.TB) *schemas.Registry {
	tb.Helper()
	reg, _, err := schemas.NewLoader(tb.TempDir(), builtin.Schemas()).Load()
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}
