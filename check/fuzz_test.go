package check

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/schemas"
)

func TestFuzzRun(t *testing.T) {
	reg := loadDir(t, filepath.Join("..", "examples", "schemas"))
	total := 0
	eachVersion(reg, func(*schemas.ResourceVersion) { total++ })
	cases := map[string]struct {
		roundTrip RoundTrip
		want      []string // rule field per finding
	}{
		"generation only": {},
		"exact round trips": {
			roundTrip: func(*schemas.ResourceVersion, []byte) (string, error) { return "", nil },
		},
		"a converter that loses spec.color": {
			roundTrip: func(rv *schemas.ResourceVersion, obj []byte) (string, error) {
				if gjson.GetBytes(obj, "spec.color").Exists() {
					return ".spec.color", nil
				}
				return "", nil
			},
			want: []string{"round-trip .spec.color"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var progress []int
			r := &Report{}
			Fuzz{Seed: 3, Rounds: 10, RoundTrip: c.roundTrip, Progress: func(done, n int) {
				if n != total {
					t.Errorf("progress total %d, want %d", n, total)
				}
				progress = append(progress, done)
			}}.Run(context.Background(), reg, r)
			if len(progress) != total || progress[total-1] != total {
				t.Errorf("progress %v, want 1..%d", progress, total)
			}
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.Rule+" "+f.Field)
				if f.Severity != Error || f.Resource == "" || f.File == "" || f.Pointer == "" {
					t.Errorf("finding %+v", f)
				}
			}
			if (len(got) == 0) != (len(c.want) == 0) {
				t.Errorf("findings %v, want %v", got, c.want)
			}
			for _, g := range got {
				if g != c.want[0] {
					t.Errorf("finding %q, want %q", g, c.want[0])
				}
			}
		})
	}
}

func TestFuzzUnsatisfiable(t *testing.T) {
	reg := loadDir(t, writeDir(t, version{name: "v1", storage: true,
		spec: "code: {type: string, pattern: '^[a-z]+$', minLength: 5, maxLength: 3}", extra: "required: [code]", root: "required: [spec]"}))
	r := &Report{}
	Fuzz{Seed: 1, Rounds: 3}.Run(context.Background(), reg, r)
	if len(r.Findings) != 1 || r.Findings[0].Rule != "generate" || r.Findings[0].Severity != Warning {
		t.Fatalf("want one generate warning, got %+v", r.Findings)
	}
	if r.Failed() {
		t.Error("a warning must not fail the check")
	}
}
