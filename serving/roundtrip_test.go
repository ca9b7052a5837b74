package serving

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/schemas"
)

func TestProveRoundTrips(t *testing.T) {
	dir := filepath.Join("..", "examples", "conversion")
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	dropHeight := func(rv *schemas.ResourceVersion, obj []byte) (string, error) {
		if rv.Version == "v1" && gjson.GetBytes(obj, "spec.height").Exists() {
			return ".spec.height", nil
		}
		return "", nil
	}
	tests := map[string]struct {
		rules roundTripper
		want  string // a part of the error; "" for none
	}{
		"the declared rules are lossless": {rules: set},
		"rules that drop a field are refused": {
			rules: fakeRules{roundTrip: dropHeight, converts: set.Converts},
			want:  "v1.yaml#/components/schemas/Frobber: .spec.height is lost or changed",
		},
		"a version no rule converts is not tried": {
			rules: fakeRules{roundTrip: dropHeight, converts: func(*schemas.ResourceVersion) bool { return false }},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := proveRoundTrips(t.Context(), reg, tc.rules)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// fakeRules are conversion rules that lose what roundTrip says.
type fakeRules struct {
	roundTrip func(*schemas.ResourceVersion, []byte) (string, error)
	converts  func(*schemas.ResourceVersion) bool
}

func (f fakeRules) RoundTrip(rv *schemas.ResourceVersion, obj []byte) (string, error) {
	return f.roundTrip(rv, obj)
}

func (f fakeRules) Converts(rv *schemas.ResourceVersion) bool { return f.converts(rv) }
