package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const checkSchema = `openapi: 3.0.3
info:
  title: Test
  version: v1
x-specd:
  group: test.example.com
components:
  schemas:
    Thing:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          properties:
            color: {type: string, enum: [red, green]}
`

func writeSchemaDir(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v1.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCheckExitCodes(t *testing.T) {
	clean := writeSchemaDir(t, checkSchema)
	broken := writeSchemaDir(t, strings.Replace(checkSchema, "type: string", "type: strung", 1))
	newEnum := writeSchemaDir(t, strings.Replace(checkSchema, "[red, green]", "[red, green, blue]", 1))
	cases := map[string]struct {
		args []string
		code int
	}{
		"clean":                             {[]string{"--schemas", clean}, 0},
		"clean json":                        {[]string{"--schemas", clean, "--output", "json"}, 0},
		"broken":                            {[]string{"--schemas", broken}, 1},
		"missing dir":                       {[]string{"--schemas", filepath.Join(clean, "nope")}, 1},
		"compatible":                        {[]string{"--schemas", clean, "--previous", clean}, 0},
		"incompatible":                      {[]string{"--schemas", newEnum, "--previous", clean}, 1},
		"broken previous":                   {[]string{"--schemas", clean, "--previous", broken}, 1},
		"no fuzz":                           {[]string{"--schemas", clean, "--rounds", "0", "--seed", "9"}, 0},
		"help":                              {[]string{"-h"}, 0},
		"no --schemas":                      {nil, 2},
		"bad --output":                      {[]string{"--schemas", clean, "--output", "yaml"}, 2},
		"negative --rounds":                 {[]string{"--schemas", clean, "--rounds", "-1"}, 2},
		"unknown flag":                      {[]string{"--schemas", clean, "--frob"}, 2},
		"unexpected argument":               {[]string{"--schemas", clean, "extra"}, 2},
		"bad --seed":                        {[]string{"--schemas", clean, "--seed", "x"}, 2},
		"--etcd-servers without --previous": {[]string{"--schemas", clean, "--etcd-servers", "http://127.0.0.1:1"}, 2},
		"bad --etcd-timeout":                {[]string{"--schemas", clean, "--previous", clean, "--etcd-servers", "http://127.0.0.1:1", "--etcd-timeout", "0s"}, 2},
		"--etcd-servers, nothing removed":   {[]string{"--schemas", clean, "--previous", clean, "--etcd-servers", "http://127.0.0.1:1"}, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			if code := run(t.Context(), append([]string{"check"}, c.args...), &stdout, &stderr); code != c.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout.String(), stderr.String())
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	clean := writeSchemaDir(t, checkSchema)
	broken := writeSchemaDir(t, strings.Replace(checkSchema, "type: string", "type: strung", 1))
	newEnum := writeSchemaDir(t, strings.Replace(checkSchema, "[red, green]", "[red, green, blue]", 1))
	type report struct {
		Problems []map[string]string `json:"problems"`
		Findings []map[string]string `json:"findings"`
	}
	decode := func(t *testing.T, args ...string) (report, string) {
		t.Helper()
		var stdout, stderr strings.Builder
		run(t.Context(), append([]string{"check", "--output", "json"}, args...), &stdout, &stderr)
		var r report
		if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, stdout.String())
		}
		if r.Problems == nil || r.Findings == nil {
			t.Errorf("problems and findings must be lists, even empty:\n%s", stdout.String())
		}
		return r, stdout.String()
	}
	t.Run("clean", func(t *testing.T) {
		if got, out := decode(t, "--schemas", clean); len(got.Problems)+len(got.Findings) != 0 {
			t.Errorf("want an empty report, got\n%s", out)
		}
	})
	t.Run("problem", func(t *testing.T) {
		got, out := decode(t, "--schemas", broken)
		if len(got.Problems) != 1 {
			t.Fatalf("want one problem, got\n%s", out)
		}
		p := got.Problems[0]
		want := map[string]string{"file": filepath.Join(broken, "v1.yaml"), "pointer": "/components/schemas/Thing/properties/spec/properties/color/type", "severity": "error"}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s = %q, want %q", k, p[k], v)
			}
		}
		if p["message"] == "" {
			t.Error("no message")
		}
	})
	t.Run("finding", func(t *testing.T) {
		got, out := decode(t, "--schemas", newEnum, "--previous", clean)
		if len(got.Findings) != 1 {
			t.Fatalf("want one finding, got\n%s", out)
		}
		f := got.Findings[0]
		want := map[string]string{
			"severity": "error", "rule": "enum-value-added", "file": filepath.Join(newEnum, "v1.yaml"),
			"pointer":  "/components/schemas/Thing/properties/spec/properties/color/enum",
			"resource": "things.test.example.com", "version": "v1", "field": ".spec.color",
		}
		for k, v := range want {
			if f[k] != v {
				t.Errorf("%s = %q, want %q", k, f[k], v)
			}
		}
	})
}

// TestCheckConversion fuzzes the round trips of the Frobber of
// docs/conversion.md, and reports a rule that names a missing field as a
// problem of the schema directory.
func TestCheckConversion(t *testing.T) {
	frobber := filepath.Join("..", "..", "examples", "conversion", "frob.example.com")
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"check", "--schemas", frobber, "--rounds", "200", "--seed", "3"}, &stdout, &stderr); code != 0 {
		t.Errorf("exit code %d, want 0\n%s%s", code, stdout.String(), stderr.String())
	}
	v1, err := os.ReadFile(filepath.Join(frobber, "v1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string]string{
		"v1.yaml": strings.Replace(string(v1), "from: spec.width,", "from: spec.depth,", 1),
		"v2.yaml": mustRead(t, filepath.Join(frobber, "v2.yaml")),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Reset()
	if code := run(t.Context(), []string{"check", "--schemas", dir}, &stdout, &stderr); code != 1 {
		t.Errorf("exit code %d, want 1\n%s", code, stdout.String())
	}
	if want := filepath.Join(dir, "v1.yaml") + "#/components/schemas/Frobber/x-specd-resource/conversion/rules/1"; !strings.Contains(stdout.String(), want) {
		t.Errorf("want a problem at %s, got\n%s", want, stdout.String())
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCheckInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr strings.Builder
	if code := run(ctx, []string{"check", "--schemas", writeSchemaDir(t, checkSchema)}, &stdout, &stderr); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q does not say interrupted", stderr.String())
	}
}

// checkCRD is the Thing of checkSchema as a CRD file.
const checkCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.test.example.com}
spec:
  group: test.example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string, enum: [red, green]}
`

// TestCheckCRDFiles: specd check and --previous read CRD files as they
// read specd files, pointing into the CRD, and between the two formats.
func TestCheckCRDFiles(t *testing.T) {
	clean := writeSchemaDir(t, checkCRD)
	newEnum := writeSchemaDir(t, strings.Replace(checkCRD, "[red, green]", "[red, green, blue]", 1))
	broken := writeSchemaDir(t, strings.Replace(checkCRD, "type: string", "type: strung", 1))
	specd := writeSchemaDir(t, checkSchema)
	cases := map[string]struct {
		args []string
		code int
		out  string
	}{
		"clean":                      {[]string{"--schemas", clean}, 0, "0 problem(s), 0 error finding(s)"},
		"broken":                     {[]string{"--schemas", broken}, 1, filepath.Join(broken, "v1.yaml") + "#/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/color/type"},
		"incompatible":               {[]string{"--schemas", newEnum, "--previous", clean}, 1, filepath.Join(newEnum, "v1.yaml") + "#/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/color/enum"},
		"from a specd file to CRD":   {[]string{"--schemas", newEnum, "--previous", specd}, 1, "enum-value-added"},
		"from a CRD to a specd file": {[]string{"--schemas", specd, "--previous", clean}, 0, "0 error finding(s)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(t.Context(), append([]string{"check"}, c.args...), &stdout, &stderr)
			if code != c.code || !strings.Contains(stdout.String(), c.out) {
				t.Errorf("exit code %d, want %d and %q in\nstdout:\n%s\nstderr:\n%s", code, c.code, c.out, stdout.String(), stderr.String())
			}
		})
	}
}
