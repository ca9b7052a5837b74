package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/plugins/sdk"
)

// A plugin's functions are plain functions: test them without specd.

func ship(t *testing.T, spec string) *sdk.Object {
	t.Helper()
	o, err := sdk.ParseObject([]byte(`{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"s"},"spec":` + spec + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestDefaultShip(t *testing.T) {
	for spec, want := range map[string]string{`{}`: "cargo", `{"class":"tanker"}`: "tanker"} {
		req := &sdk.AdmissionRequest{Operation: sdk.Create, Object: ship(t, spec)}
		if err := defaultShip(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if got := req.Object.String("spec.class"); got != want {
			t.Errorf("%s: class %q, want %q", spec, got, want)
		}
	}
}

func TestValidateShip(t *testing.T) {
	tests := map[string]struct {
		old, new string
		invalid  bool
	}{
		"set the first time": {old: `{}`, new: `{"registry":"Oslo"}`},
		"kept":               {old: `{"registry":"Oslo"}`, new: `{"registry":"Oslo","captain":"Ada"}`},
		"changed":            {old: `{"registry":"Oslo"}`, new: `{"registry":"Bergen"}`, invalid: true},
		"removed":            {old: `{"registry":"Oslo"}`, new: `{}`, invalid: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			errs, err := validateShip(context.Background(), &sdk.AdmissionRequest{
				Operation: sdk.Update, Object: ship(t, tc.new), OldObject: ship(t, tc.old),
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(errs) > 0; got != tc.invalid {
				t.Errorf("field errors %v, want invalid=%v", errs, tc.invalid)
			}
			if tc.invalid && (errs[0].Field != "spec.registry" || errs[0].Message != "field is immutable") {
				t.Errorf("field error %+v", errs[0])
			}
		})
	}
}

// TestGuideShowsThisPlugin keeps the complete plugin of docs/plugins.md
// the one that is built and tested here.
func TestGuideShowsThisPlugin(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "plugins.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```go\n")
	block, _, _ = strings.Cut(block, "```")
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "package main\n")
	if !ok || block != "package main\n"+code {
		t.Errorf("the first go block of docs/plugins.md is not main.go after its package comment:\n%s", block)
	}
}
