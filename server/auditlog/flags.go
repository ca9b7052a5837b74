package auditlog

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	pluginlog "k8s.io/apiserver/plugin/pkg/audit/log"
)

// kube-apiserver's defaults for the log flags.
const (
	defaultMaxAge     = 366
	defaultMaxBackups = 100
	defaultMaxSize    = 100
)

// Flags are kube-apiserver's --audit-policy-file and --audit-log-* flags.
type Flags struct {
	PolicyFile string
	// LogPath is the file to append events to; "-" is standard output.
	LogPath string
	// MaxAge is in days, MaxSize in megabytes; 0 keeps old files forever,
	// keeps any number of them, or never rotates.
	MaxAge, MaxBackups, MaxSize int
	// Format is "json" (the default when empty) or "legacy".
	Format string
}

// Register adds the flags to fs with kube-apiserver's names and defaults.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.PolicyFile, "audit-policy-file", "", "audit.k8s.io/v1 Policy file saying what to audit; needs --audit-log-path")
	fs.StringVar(&f.LogPath, "audit-log-path", "", "file the audit events are appended to, one JSON object a line; '-' means standard output")
	fs.IntVar(&f.MaxAge, "audit-log-maxage", defaultMaxAge, "days to keep rotated audit log files; 0 keeps them regardless of age")
	fs.IntVar(&f.MaxBackups, "audit-log-maxbackup", defaultMaxBackups, "rotated audit log files to keep; 0 keeps them all")
	fs.IntVar(&f.MaxSize, "audit-log-maxsize", defaultMaxSize, "megabytes an audit log file may grow to before it is rotated; 0 never rotates")
	fs.StringVar(&f.Format, "audit-log-format", pluginlog.FormatJson, "json (one audit.k8s.io/v1 Event a line) or legacy (one line of text an event)")
}

// Check says what is wrong with the flags, all of it at once. Unlike
// kube-apiserver, which then audits nothing without a word, it refuses a
// policy without a log or a log without a policy: specd has no audit
// webhook that could use the one without the other.
func (f Flags) Check() error {
	var errs []error
	switch {
	case f.PolicyFile != "" && f.LogPath == "":
		errs = append(errs, errors.New("--audit-policy-file needs --audit-log-path: specd writes audit events only to a log"))
	case f.PolicyFile == "" && f.LogPath != "":
		errs = append(errs, errors.New("--audit-log-path needs --audit-policy-file: without a policy nothing is audited"))
	}
	if f.Format != "" && !slices.Contains(pluginlog.AllowedFormats, f.Format) {
		errs = append(errs, fmt.Errorf("--audit-log-format %q: want one of %s", f.Format, strings.Join(pluginlog.AllowedFormats, ", ")))
	}
	for _, n := range []struct {
		name  string
		value int
	}{{"maxage", f.MaxAge}, {"maxbackup", f.MaxBackups}, {"maxsize", f.MaxSize}} {
		if n.value < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-%s %d: must not be negative", n.name, n.value))
		}
	}
	return errors.Join(errs...)
}

// configured says whether the flags ask for an audit log at all.
func (f Flags) configured() bool { return f.PolicyFile != "" || f.LogPath != "" }
