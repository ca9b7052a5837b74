package cliflag

import (
	"log/slog"
	"strings"
)

// Level is a log level flag, named as its values are typed (debug, info,
// warn, error) in help and completion, where slog's own text is
// upper-case.
type Level slog.Level

func (l *Level) String() string { return strings.ToLower(slog.Level(*l).String()) }

// Set parses v as slog does, in either case.
func (l *Level) Set(v string) error { return (*slog.Level)(l).UnmarshalText([]byte(v)) }

// Type is the name pflag's help gives the value.
func (l *Level) Type() string { return "level" }
