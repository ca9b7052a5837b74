package converters

import (
	"errors"
	"testing"
)

func TestSplitBookkeeping(t *testing.T) {
	for name, tc := range map[string]struct {
		in, want, value string
		err             error
	}{
		"none": {
			in:   `{"metadata":{"name":"a"},"spec":{}}`,
			want: `{"metadata":{"name":"a"},"spec":{}}`,
		},
		"the key elsewhere": {
			in:   `{"metadata":{"name":"a"},"spec":{"note":"specd.io/conversion-data"}}`,
			want: `{"metadata":{"name":"a"},"spec":{"note":"specd.io/conversion-data"}}`,
		},
		"alone: annotations go too": {
			in:    `{"metadata":{"name":"a","annotations":{"specd.io/conversion-data":"{\"v2\":{}}"}},"spec":{}}`,
			want:  `{"metadata":{"name":"a"},"spec":{}}`,
			value: `{"v2":{}}`,
		},
		"beside other annotations": {
			in:    `{"metadata":{"annotations":{"a":"1","specd.io/conversion-data":"{}","b":"2"}}}`,
			want:  `{"metadata":{"annotations":{"a":"1","b":"2"}}}`,
			value: `{}`,
		},
		"not a string": {
			in:  `{"metadata":{"annotations":{"specd.io/conversion-data":{}}}}`,
			err: ErrBookkeeping,
		},
	} {
		t.Run(name, func(t *testing.T) {
			in := []byte(tc.in)
			out, value, err := SplitBookkeeping(in)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if string(out) != tc.want || value != tc.value {
				t.Errorf("got %s %q, want %s %q", out, value, tc.want, tc.value)
			}
			if string(in) != tc.in {
				t.Errorf("the input changed: %s", in)
			}
		})
	}
}
