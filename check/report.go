package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// Severity says how bad a problem or finding is.
type Severity string

const (
	// Error fails the check (exit code 1).
	Error Severity = "error"
	// Warning is reported but does not fail the check.
	Warning Severity = "warning"
)

// Problem is something wrong in a schema directory: it cannot be served.
type Problem struct {
	File     string   `json:"file"`
	Pointer  string   `json:"pointer"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity"`
}

// Finding is a change between a previous schema directory and a new one
// that existing clients or stored objects may notice.
type Finding struct {
	Severity Severity `json:"severity"`
	// Rule names the compatibility rule, such as "field-removed".
	Rule string `json:"rule"`
	// File and Pointer locate the change: in the new directory, or in the
	// previous one for something that was removed.
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	// Resource is plural.group; Version the API version; Field the field
	// path in the object (".spec.color"), "" for the whole resource.
	Resource string `json:"resource,omitempty"`
	Version  string `json:"version,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
}

// Report is everything one check found.
type Report struct {
	Problems []Problem `json:"problems"`
	Findings []Finding `json:"findings"`
}

// Failed reports whether the check must fail: any problem, or any finding
// of severity error.
func (r *Report) Failed() bool {
	if len(r.Problems) > 0 {
		return true
	}
	for _, f := range r.Findings {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// LoadSchemas loads dir with specd's built-in schema files, as specd
// serve does, so that a file declaring a built-in group is reported. When
// it cannot be served the registry is nil and every problem is added to r
// (a directory that cannot be read at all is one problem naming the
// directory).
func (r *Report) LoadSchemas(dir string) *schemas.Registry {
	reg, _, err := schemas.NewLoader(dir, builtin.Schemas()).Load()
	if err != nil {
		r.AddLoadError(err, dir)
		return nil
	}
	return reg
}

// AddLoadError adds every problem of a *schemas.LoadError in err, or err
// itself as a problem of file.
func (r *Report) AddLoadError(err error, file string) {
	var le *schemas.LoadError
	if !errors.As(err, &le) {
		r.Problems = append(r.Problems, Problem{File: file, Message: err.Error(), Severity: Error})
		return
	}
	for _, p := range le.Problems {
		r.Problems = append(r.Problems, Problem{File: p.File, Pointer: p.Pointer, Message: p.Message, Severity: Error})
	}
}

// sortFindings orders findings by file, pointer and rule, so that output
// is stable.
func (r *Report) sortFindings() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Rule < b.Rule
	})
}

// WriteJSON writes r as one indented JSON object; empty lists are [] so
// that pipelines can index them without a null check.
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	if out.Problems == nil {
		out.Problems = []Problem{}
	}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteText writes one line per problem and finding, then a summary line.
func (r *Report) WriteText(w io.Writer) error {
	for _, p := range r.Problems {
		if _, err := fmt.Fprintf(w, "%s: %s: %s\n", p.Severity, location(p.File, p.Pointer), p.Message); err != nil {
			return err
		}
	}
	errs, warns := 0, 0
	for _, f := range r.Findings {
		if f.Severity == Error {
			errs++
		} else {
			warns++
		}
		if _, err := fmt.Fprintf(w, "%s: %s: %s [%s]\n", f.Severity, location(f.File, f.Pointer), f.Message, f.Rule); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d problem(s), %d error finding(s), %d warning(s)\n", len(r.Problems), errs, warns)
	return err
}

func location(file, pointer string) string {
	if pointer == "" {
		return file
	}
	return file + "#" + pointer
}
