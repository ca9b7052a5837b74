package configdata_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine/configdata"
	"github.com/specd-io/specd/plugins/hook"
)

// keyMsg is kube's message for a key that is not a valid config key.
const keyMsg = `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`

const immutableMsg = "Forbidden: field is immutable when `immutable` is set"

// cause is one cause of a 422, as kube's Status has it.
type cause struct{ reason, field, message string }

// TestCheckSecret: kube's ValidateSecret and ValidateSecretUpdate, with
// kube's causes.
func TestCheckSecret(t *testing.T) {
	tests := map[string]struct {
		obj, old string
		want     []cause
	}{
		"valid":           {obj: `{"data":{"a.b_C-1":"YQ=="},"type":"Opaque"}`},
		"no data":         {obj: `{"type":"Opaque"}`},
		"unknown type ok": {obj: `{"type":"example.com/thing"}`},
		"bad keys": {obj: `{"data":{"a b":"","..":"","ok":""},"type":"Opaque"}`, want: []cause{
			{"FieldValueInvalid", "data[..]", `Invalid value: "..": must not be '..'`},
			{"FieldValueInvalid", "data[a b]", `Invalid value: "a b": ` + keyMsg},
		}},
		"too big": {obj: secretOfSize(1<<20 + 1), want: []cause{
			{"FieldValueTooLong", "data", "Too long: may not be more than 1048576 bytes"}}},
		"1 MiB is fine": {obj: secretOfSize(1 << 20)},
		"service account token needs its annotation": {obj: `{"type":"kubernetes.io/service-account-token"}`, want: []cause{
			{"FieldValueRequired", "metadata.annotations[kubernetes.io/service-account.name]", "Required value"}}},
		"service account token with its annotation": {
			obj: `{"metadata":{"annotations":{"kubernetes.io/service-account.name":"sa"}},"type":"kubernetes.io/service-account-token"}`},
		"dockercfg missing": {obj: `{"type":"kubernetes.io/dockercfg"}`, want: []cause{
			{"FieldValueRequired", "data[.dockercfg]", "Required value"}}},
		"dockercfg not JSON": {obj: `{"type":"kubernetes.io/dockercfg","data":{".dockercfg":"ew=="}}`, want: []cause{
			{"FieldValueInvalid", "data[.dockercfg]", `Invalid value: "<secret contents redacted>": unexpected end of JSON input`}}},
		"dockercfg JSON": {obj: `{"type":"kubernetes.io/dockercfg","data":{".dockercfg":"e30="}}`},
		"dockerconfigjson not an object": {obj: `{"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"WzFd"}}`, want: []cause{
			{"FieldValueInvalid", "data[.dockerconfigjson]", `Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}`}}},
		"dockerconfigjson missing": {obj: `{"type":"kubernetes.io/dockerconfigjson"}`, want: []cause{
			{"FieldValueRequired", "data[.dockerconfigjson]", "Required value"}}},
		"basic auth needs one of its keys": {obj: `{"type":"kubernetes.io/basic-auth"}`, want: []cause{
			{"FieldValueRequired", "data[username]", "Required value"},
			{"FieldValueRequired", "data[password]", "Required value"}}},
		"basic auth with an empty password": {obj: `{"type":"kubernetes.io/basic-auth","data":{"password":""}}`},
		"ssh auth needs a key": {obj: `{"type":"kubernetes.io/ssh-auth","data":{"ssh-privatekey":""}}`, want: []cause{
			{"FieldValueRequired", "data[ssh-privatekey]", "Required value"}}},
		"tls needs both": {obj: `{"type":"kubernetes.io/tls","data":{"tls.key":""}}`, want: []cause{
			{"FieldValueRequired", "data[tls.crt]", "Required value"}}},
		"type is immutable": {old: `{"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`, obj: `{"type":"Opaque"}`, want: []cause{
			{"FieldValueInvalid", "type", `Invalid value: "Opaque": field is immutable`}}},
		"mutable data changes": {old: `{"type":"Opaque","data":{"a":"YQ=="}}`, obj: `{"type":"Opaque","data":{"a":"Yg=="}}`},
		"immutable data": {old: `{"type":"Opaque","immutable":true,"data":{"a":"YQ=="}}`, obj: `{"type":"Opaque","immutable":true,"data":{"a":"Yg=="}}`, want: []cause{
			{"FieldValueForbidden", "data", immutableMsg}}},
		"immutable unset": {old: `{"type":"Opaque","immutable":true}`, obj: `{"type":"Opaque","immutable":false}`, want: []cause{
			{"FieldValueForbidden", "immutable", immutableMsg}}},
		"immutable: metadata may change": {old: `{"type":"Opaque","immutable":true,"data":{"a":"YQ=="}}`,
			obj: `{"metadata":{"labels":{"x":"y"}},"type":"Opaque","immutable":true,"data":{"a":"YQ=="}}`},
		"immutable: no data is empty data": {old: `{"type":"Opaque","immutable":true,"data":{}}`, obj: `{"type":"Opaque","immutable":true}`},
		"may become immutable":             {old: `{"type":"Opaque"}`, obj: `{"type":"Opaque","immutable":true,"data":{"a":"YQ=="}}`},
		"update errors first": {old: `{"type":"Opaque","immutable":true}`, obj: `{"type":"kubernetes.io/tls","immutable":true}`, want: []cause{
			{"FieldValueInvalid", "type", `Invalid value: "kubernetes.io/tls": field is immutable`},
			{"FieldValueRequired", "data[tls.crt]", "Required value"},
			{"FieldValueRequired", "data[tls.key]", "Required value"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			wantCauses(t, check(t, configdata.Secrets, tc.obj, tc.old), tc.want)
		})
	}
}

// TestCheckConfigMap: kube's ValidateConfigMap and
// ValidateConfigMapUpdate, with kube's causes.
func TestCheckConfigMap(t *testing.T) {
	tests := map[string]struct {
		obj, old string
		want     []cause
	}{
		"valid": {obj: `{"data":{"a":"x"},"binaryData":{"b":"YQ=="}}`},
		"bad keys in both": {obj: `{"data":{"a/b":"x"},"binaryData":{"-":"","c d":""}}`, want: []cause{
			{"FieldValueInvalid", "data[a/b]", `Invalid value: "a/b": ` + keyMsg},
			{"FieldValueInvalid", "binaryData[c d]", `Invalid value: "c d": ` + keyMsg}}},
		"a key in both": {obj: `{"data":{"a":"x"},"binaryData":{"a":"YQ=="}}`, want: []cause{
			{"FieldValueInvalid", "data[a]", `Invalid value: "a": duplicate of key present in binaryData`}}},
		"too big together": {obj: `{"data":{"a":"` + strings.Repeat("x", 1<<19) + `"},"binaryData":{"b":"` + b64Of(1<<19+1) + `"}}`, want: []cause{
			{"FieldValueTooLong", "[]", "Too long: may not be more than 1048576 bytes"}}},
		"immutable": {old: `{"immutable":true,"data":{"a":"x"},"binaryData":{"b":"YQ=="}}`, obj: `{"data":{"a":"y"}}`, want: []cause{
			{"FieldValueForbidden", "immutable", immutableMsg},
			{"FieldValueForbidden", "data", immutableMsg},
			{"FieldValueForbidden", "binaryData", immutableMsg}}},
		"immutable unchanged": {old: `{"immutable":true,"data":{"a":"x"}}`, obj: `{"metadata":{"labels":{"a":"b"}},"immutable":true,"data":{"a":"x"}}`},
		"mutable changes":     {old: `{"immutable":false,"data":{"a":"x"}}`, obj: `{"data":{"b":"x"}}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			wantCauses(t, check(t, configdata.ConfigMaps, tc.obj, tc.old), tc.want)
		})
	}
}

// TestCheckStatus: the whole Status of a refused update, as kube answers
// it.
func TestCheckStatus(t *testing.T) {
	err := check(t, configdata.Secrets, `{"type":"Opaque"}`, `{"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`)
	got, _ := json.Marshal(apiStatus(t, err))
	want := `{"metadata":{},"status":"Failure","message":"Secret \"s\" is invalid: type: Invalid value: \"Opaque\": field is immutable",` +
		`"reason":"Invalid","details":{"name":"s","kind":"Secret","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"Opaque\": field is immutable","field":"type"}]},"code":422}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	err = check(t, configdata.ConfigMaps, `{"data":{"a":"x"}}`, `{"immutable":true,"data":{"a":"y"}}`)
	if msg := apiStatus(t, err).Message; msg != "ConfigMap \"s\" is invalid: [immutable: "+immutableMsg+", data: "+immutableMsg+"]" {
		t.Errorf("message = %s", msg)
	}
}

// check runs the WriteCheck of resource on obj (a create) or on obj over
// old (an update); both are the object's fields without apiVersion and
// kind, which the check does not read.
func check(tb testing.TB, resource, obj, old string) error {
	tb.Helper()
	ar := hook.AdmissionRequest{Name: "s", Namespace: "ns", Operation: hook.OperationCreate, Object: []byte(obj)}
	if old != "" {
		ar.Operation, ar.OldObject = hook.OperationUpdate, []byte(old)
	}
	return configdata.WriteChecks()[resource](context.Background(), ar)
}

func wantCauses(tb testing.TB, err error, want []cause) {
	tb.Helper()
	if len(want) == 0 {
		if err != nil {
			tb.Fatalf("refused: %v", err)
		}
		return
	}
	st := apiStatus(tb, err)
	if st.Code != 422 || st.Reason != "Invalid" || st.Details == nil {
		tb.Fatalf("status = %+v", st)
	}
	var got []cause
	for _, c := range st.Details.Causes {
		got = append(got, cause{string(c.Type), c.Field, c.Message})
	}
	if len(got) != len(want) {
		tb.Fatalf("causes = %q\nwant     %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			tb.Errorf("cause %d = %q\nwant      %q", i, got[i], want[i])
		}
	}
}

func apiStatus(tb testing.TB, err error) metav1.Status {
	tb.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		tb.Fatalf("not a Status error: %v", err)
	}
	return se.ErrStatus
}

// secretOfSize is an Opaque Secret holding n bytes of data, in two keys.
func secretOfSize(n int) string {
	return `{"type":"Opaque","data":{"a":"` + b64Of(n/2) + `","b":"` + b64Of(n-n/2) + `"}}`
}

// b64Of is n bytes, base64-encoded.
func b64Of(n int) string {
	return base64.StdEncoding.EncodeToString(make([]byte, n))
}
