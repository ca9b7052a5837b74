package golden

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := map[string]struct {
		in   string
		want *Archive
		out  string // Format of the parsed archive, "" for in
	}{
		"comment only": {
			in:   "just a comment\n",
			want: &Archive{Comment: "just a comment\n"},
		},
		"files": {
			in: "about\n-- a.yaml --\nx: 1\n-- dir/b.json --\n{}\n-- want --\n",
			want: &Archive{Comment: "about\n", Files: []File{
				{Name: "a.yaml", Data: "x: 1\n"}, {Name: "dir/b.json", Data: "{}\n"}, {Name: "want", Data: ""},
			}},
		},
		"no final newline": {
			in:   "-- a --\nx",
			want: &Archive{Files: []File{{Name: "a", Data: "x"}}},
			out:  "-- a --\nx\n",
		},
		"not markers": {
			in:   "-- --\n--a --\n-- b --x\n",
			want: &Archive{Comment: "-- --\n--a --\n-- b --x\n"},
		},
		"CRLF marker": {
			in:   "-- a --\r\nx\r\n",
			want: &Archive{Files: []File{{Name: "a", Data: "x\r\n"}}},
			out:  "-- a --\nx\r\n",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := Parse([]byte(tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
			out := tt.out
			if out == "" {
				out = tt.in
			}
			if diff := cmp.Diff(out, string(Format(got))); diff != "" {
				t.Errorf("Format (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSet(t *testing.T) {
	a := Parse([]byte("-- in --\n1\n-- want --\nold\n"))
	a.Set("want", "new\n")
	a.Set("extra", "e")
	want := "-- in --\n1\n-- want --\nnew\n-- extra --\ne\n"
	if got := string(Format(a)); got != want {
		t.Errorf("Format after Set = %q, want %q", got, want)
	}
	if in := Inputs(a, "want"); len(in) != 2 || in[0].Name != "in" || in[1].Name != "extra" {
		t.Errorf("Inputs = %+v", in)
	}
}
