package serving

import (
	"errors"
	"time"

	"github.com/specd-io/specd/schemas"
)

// Outcome is what one load of the schemas came to: the first load, or a
// reload. engine/statusapi serves them as SchemaReload objects.
type Outcome struct {
	// Seq counts the outcomes of this Set from 1.
	Seq     uint64
	At      time.Time
	Trigger string
	// Result is the label of specd_schema_reloads_total: "applied",
	// "unchanged", "failed" (did not load) or "refused" (breaking).
	Result string
	// Message is the error of a failed or refused reload, on one line.
	Message string
	// Problems are, for a failed reload, what did not load; for a
	// refused one, the breaking changes, each with its Rule.
	Problems []Problem
	// Added, Changed and Removed name the resources (plural.group) an
	// applied reload added, changed and removed.
	Added, Changed, Removed []string
}

// Problem is a problem of a reload: where, what, and for a breaking
// change the compatibility rule it breaks (check's rule names).
type Problem struct {
	schemas.Problem
	Rule string
}

// keptOutcomes is how many outcomes a Set remembers.
const keptOutcomes = 32

// Outcomes are the last outcomes, oldest first, and a channel closed
// when the next one is recorded.
func (s *Set) Outcomes() ([]Outcome, <-chan struct{}) {
	st := &s.status
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]Outcome(nil), st.outcomes...), st.next
}

// Files are the names of the files the served world was loaded from (as
// problems name them: the directory's files by path, the built-in ones
// under builtin/, CRD objects as customresourcedefinitions/NAME), with
// the SHA-256 of each one's content.
func (s *Set) Files() map[string]string {
	w := s.current.Load()
	out := make(map[string]string, len(w.digests))
	for name, digest := range w.digests {
		out[name] = digest
	}
	return out
}

// record keeps o as the latest outcome and wakes who waits for it; under
// st.mu.
func (st *reloadStatus) record(o Outcome) {
	st.seq++
	o.Seq = st.seq
	st.outcomes = append(st.outcomes, o)
	if over := len(st.outcomes) - keptOutcomes; over > 0 {
		st.outcomes = append(st.outcomes[:0:0], st.outcomes[over:]...)
	}
	if st.next != nil {
		close(st.next)
	}
	st.next = make(chan struct{})
}

// problemsOf lists the problems err names: a load error's, a refusal's
// breaking changes, or err itself.
func problemsOf(err error) []Problem {
	var le *schemas.LoadError
	if errors.As(err, &le) {
		out := make([]Problem, len(le.Problems))
		for i, p := range le.Problems {
			out[i] = Problem{Problem: p}
		}
		return out
	}
	var re *refusedError
	if errors.As(err, &re) {
		out := make([]Problem, len(re.problems))
		for i, p := range re.problems {
			out[i] = Problem{Problem: p, Rule: re.rules[i]}
		}
		return out
	}
	return []Problem{{Problem: schemas.Problem{Message: oneLine(err)}}}
}
