package serving

import (
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/testschemas"
)

// TestOutcomes: the first load, an applied reload, a refused one with
// the rule each breaking change breaks, and a failed one with the file
// and pointer of its problem are recorded in order, each waking who
// waits for the next.
func TestOutcomes(t *testing.T) {
	set, dir := reloaderOn(t, Config{}, map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)})
	reloads := reloadsOf(t, set, nil)
	outcomes, next := set.Outcomes()
	if len(outcomes) != 1 || outcomes[0].Result != "applied" || outcomes[0].Trigger != "initial" {
		t.Fatalf("outcomes at start: %+v, want the initial load", outcomes)
	}
	steps := []struct {
		file   string
		result string
		check  func(Outcome) bool
	}{
		{gadgetsFile("v1", "", withColor...) + "\n# a comment\n", "applied", func(o Outcome) bool { return len(o.Changed) == 1 }},
		{gadgetsFile("v1", ""), "refused", func(o Outcome) bool {
			return len(o.Problems) == 1 && o.Problems[0].Rule == "field-removed" && strings.HasSuffix(o.Problems[0].File, "g.yaml") && o.Problems[0].Pointer != ""
		}},
		{"openapi: 3.0.3\ninfo: {title: x, version: v1}\nx-specd: {group: 7}\n", "failed", func(o Outcome) bool {
			return len(o.Problems) > 0 && strings.HasSuffix(o.Problems[0].File, "g.yaml") && o.Problems[0].Pointer == "/x-specd/group"
		}},
	}
	for i, step := range steps {
		testschemas.WriteFiles(t, dir, map[string]string{"g.yaml": step.file})
		_ = reloads.Reload(t.Context(), "test")
		select {
		case <-next:
		default:
			t.Fatalf("step %d: the channel of the next outcome is still open", i)
		}
		outcomes, next = set.Outcomes()
		last := outcomes[len(outcomes)-1]
		if last.Result != step.result || last.Seq != uint64(i+2) || !step.check(last) {
			t.Fatalf("step %d: outcome %+v, want %s", i, last, step.result)
		}
	}
	if files := set.Files(); len(files) != 1 {
		t.Fatalf("Files() = %v, want the one file served", files)
	}
}
