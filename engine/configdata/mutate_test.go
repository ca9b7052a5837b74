package configdata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/specd-io/specd/engine/configdata"
)

// TestMutateSecret: a written Secret as kube-apiserver decodes it.
func TestMutateSecret(t *testing.T) {
	tests := map[string]struct {
		in, want string
		warning  string
	}{
		"stringData merged and dropped, type defaulted": {
			in:   `{"stringData":{"a":"b"}}`,
			want: `{"data":{"a":"Yg=="},"type":"Opaque"}`,
		},
		"stringData wins over data": {
			in:   `{"data":{"a":"eA==","k":"eQ=="},"stringData":{"a":"b"},"type":"Opaque"}`,
			want: `{"data":{"a":"Yg==","k":"eQ=="},"type":"Opaque"}`,
		},
		"data in canonical base64": {
			in:   `{"data":{"a":"YW\nI="},"type":"x/y"}`,
			want: `{"data":{"a":"YWI="},"type":"x/y"}`,
		},
		"empty maps and null stringData dropped, empty type defaulted": {
			in:   `{"data":{},"stringData":null,"type":""}`,
			want: `{"type":"Opaque"}`,
		},
		"empty stringData dropped": {
			in:   `{"stringData":{}}`,
			want: `{"type":"Opaque"}`,
		},
		"stringData that is not strings is left for the schema": {
			in:   `{"stringData":{"a":1}}`,
			want: `{"stringData":{"a":1},"type":"Opaque"}`,
		},
		"a TLS pair that does not match is a warning": {
			in:      `{"type":"kubernetes.io/tls","stringData":{"tls.crt":"x","tls.key":"y"}}`,
			want:    `{"data":{"tls.crt":"eA==","tls.key":"eQ=="},"type":"kubernetes.io/tls"}`,
			warning: "tls: failed to find any PEM data in certificate input",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			obj := decodeJSON(t, tc.in)
			warnings, err := configdata.Mutators()[configdata.Secrets]("v1", obj)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, obj, tc.want)
			if got := strings.Join(warnings, "; "); got != tc.warning {
				t.Errorf("warnings = %q, want %q", got, tc.warning)
			}
		})
	}
}

// TestMutateErrors: data and binaryData that are not base64 fail as
// kube's JSON decoding of a []byte fails, at the first bad key in order.
func TestMutateErrors(t *testing.T) {
	tests := map[string]struct {
		resource, in, want string
	}{
		"secret data":            {configdata.Secrets, `{"data":{"a":"YWI=","b":"!!!!","c":"?"}}`, "illegal base64 data at input byte 0"},
		"secret data unpadded":   {configdata.Secrets, `{"data":{"a":"YWI"}}`, "illegal base64 data at input byte 0"},
		"secret data bad later":  {configdata.Secrets, `{"data":{"a":"YWJj!"}}`, "illegal base64 data at input byte 4"},
		"configmap binaryData":   {configdata.ConfigMaps, `{"binaryData":{"a":"Y*=="}}`, "illegal base64 data at input byte 1"},
		"stringData is no cover": {configdata.Secrets, `{"data":{"a":"!"},"stringData":{"a":"b"}}`, "illegal base64 data at input byte 0"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := configdata.Mutators()[tc.resource]("v1", decodeJSON(t, tc.in))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestMutateConfigMap: binaryData in canonical base64, empty maps
// dropped, data untouched.
func TestMutateConfigMap(t *testing.T) {
	obj := decodeJSON(t, `{"data":{"a":"!!"},"binaryData":{"b":"YW\r\nI="},"immutable":true}`)
	if _, err := configdata.Mutators()[configdata.ConfigMaps]("v1", obj); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, obj, `{"data":{"a":"!!"},"binaryData":{"b":"YWI="},"immutable":true}`)
	obj = decodeJSON(t, `{"data":{},"binaryData":{}}`)
	if _, err := configdata.Mutators()[configdata.ConfigMaps]("v1", obj); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, obj, `{}`)
}

func decodeJSON(tb testing.TB, s string) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

func sameJSON(tb testing.TB, got any, want string) {
	tb.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		tb.Fatal(err)
	}
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		tb.Fatal(err)
	}
	wb, _ := json.Marshal(w)
	if string(g) != string(wb) {
		tb.Errorf("got  %s\nwant %s", g, wb)
	}
}
