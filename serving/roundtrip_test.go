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
	tests := map[string]struct {
		roundTrip func(*schemas.ResourceVersion, []byte) (string, error)
		want      string // a part of the error; "" for none
	}{
		"the declared rules are lossless": {roundTrip: set.RoundTrip},
		"rules that drop a field are refused": {
			roundTrip: func(rv *schemas.ResourceVersion, obj []byte) (string, error) {
				if rv.Version == "v1" && gjson.GetBytes(obj, "spec.height").Exists() {
					return ".spec.height", nil
				}
				return "", nil
			},
			want: "v1.yaml#/components/schemas/Frobber: .spec.height is lost or changed",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := proveRoundTrips(t.Context(), reg, tc.roundTrip)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
