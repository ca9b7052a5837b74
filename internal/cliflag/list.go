package cliflag

import "strings"

// List is a repeatable flag whose values may also be comma-separated;
// blanks around a value and empty values are dropped.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds the values of v.
func (l *List) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// Type is the name pflag's help gives the value, as its string slices'.
func (l *List) Type() string { return "strings" }
