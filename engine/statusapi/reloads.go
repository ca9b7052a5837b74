package statusapi

import (
	"fmt"

	"github.com/specd-io/specd/serving"
)

type reloadStatus struct {
	Result       string    `json:"result"`
	Trigger      string    `json:"trigger"`
	At           string    `json:"at"`
	Message      string    `json:"message,omitempty"`
	Hint         string    `json:"hint,omitempty"`
	Added        []string  `json:"added,omitempty"`
	Changed      []string  `json:"changed,omitempty"`
	Removed      []string  `json:"removed,omitempty"`
	ProblemCount int       `json:"problemCount"`
	Problems     []problem `json:"problems,omitempty"`
}

// results are the Result of a SchemaReload by serving's outcome; an
// unchanged reload makes none.
var results = map[string]string{"applied": "Applied", "failed": "Failed", "refused": "Refused"}

// reloads are the SchemaReload objects: the outcomes serving keeps,
// named by their sequence so that they list in order.
func (p *publisher) reloads(outcomes []serving.Outcome) map[string]any {
	out := map[string]any{}
	for _, o := range outcomes {
		result, ok := results[o.Result]
		if !ok {
			continue
		}
		st := reloadStatus{Result: result, Trigger: o.Trigger, At: timestamp(o.At), Message: p.inMessage(o.Message),
			Added: o.Added, Changed: o.Changed, Removed: o.Removed, ProblemCount: len(o.Problems)}
		for _, pr := range o.Problems {
			st.Problems = append(st.Problems, p.problem(pr))
		}
		if o.Result == "refused" {
			st.Hint = "These changes break clients or stored objects; " + serving.AllowBreakingHint + "."
		}
		out[fmt.Sprintf("reload-%08d", o.Seq)] = st
	}
	return out
}
