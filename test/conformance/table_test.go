package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadJUnit(t *testing.T) {
	results, err := ReadJUnit("testdata/junit_01.xml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Outcome{
		"[sig-api-machinery] Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance]": Passed,
		"[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should mutate pod and apply defaults after mutation [Conformance]":            Failed,
		"[sig-api-machinery] Namespaces [Serial] should apply a finalizer to a Namespace [Conformance]":                                               Failed,
		"[sig-api-machinery] Etcd failure [Disruptive] should recover from network partition with master":                                             Skipped,
		"[sig-storage] CSI Volumes should work": Skipped,
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d (the suite's own nodes left out): %+v", len(results), len(want), results)
	}
	for _, r := range results {
		if want[r.Name] != r.Outcome {
			t.Errorf("%s: %s, want %s", r.Name, r.Outcome, want[r.Name])
		}
		if r.Outcome == Failed && !strings.HasPrefix(r.Failure, "[FAILED] ") {
			t.Errorf("%s: failure text %q", r.Name, r.Failure)
		}
	}
	if got := len(InFocus(results)); got != 4 {
		t.Errorf("InFocus kept %d results, want the 4 of sig-api-machinery", got)
	}
}

func TestRows(t *testing.T) {
	notes := writeNotes(t, `# comment
n/a | AdmissionWebhook | admission webhooks, served by a pod
n/a | \[Disruptive\] | stops the API server
fails | Watchers | never: a test that passes passes
`)
	results, err := ReadJUnit("testdata/junit_01.xml")
	if err != nil {
		t.Fatal(err)
	}
	rows := Rows(InFocus(results), notes)
	want := []Row{
		{Name: "[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should mutate pod and apply defaults after mutation [Conformance]", Verdict: NotApplicable, Why: "admission webhooks, served by a pod"},
		{Name: "[sig-api-machinery] Etcd failure [Disruptive] should recover from network partition with master", Verdict: NotApplicable, Why: "stops the API server"},
		{Name: "[sig-api-machinery] Namespaces [Serial] should apply a finalizer to a Namespace [Conformance]", Verdict: Fails, Why: "not triaged yet: [FAILED] Expected <bool>: false to be true"},
		{Name: "[sig-api-machinery] Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance]", Verdict: Passes},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	if c := Count(rows); c != (Counts{Passes: 1, Applicable: 2, Total: 4}) {
		t.Errorf("counts %s, want 1 / 2 / 4", c)
	}
	if u := Untriaged(rows); len(u) != 1 || u[0].Name != want[2].Name {
		t.Errorf("untriaged %+v", u)
	}
	md := Markdown(rows)
	if !strings.Contains(md, "| [sig-api-machinery] Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance] | passes |  |\n") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestReadNotesErrors(t *testing.T) {
	for name, text := range map[string]string{
		"two fields":   "n/a | Webhook\n",
		"verdict":      "maybe | Webhook | why\n",
		"regexp":       "n/a | ( | why\n",
		"empty reason": "fails | Webhook |  \n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "notes.txt")
			if err := os.WriteFile(path, []byte("# ok\n"+text), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadNotes(path); err == nil || !strings.Contains(err.Error(), "notes.txt:2:") {
				t.Errorf("ReadNotes: %v, want an error naming line 2", err)
			}
		})
	}
}

func TestReplace(t *testing.T) {
	doc := "# Title\n\n" + BeginMarker + "\nold table\n" + EndMarker + "\n\nAfter.\n"
	out, err := Replace([]byte(doc), "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Title\n\n" + BeginMarker + "\n\nnew table\n\n" + EndMarker + "\n\nAfter.\n"; string(out) != want {
		t.Errorf("Replace:\n%s\nwant\n%s", out, want)
	}
	if _, err := Replace([]byte("no markers"), "x"); err == nil {
		t.Error("Replace without markers: no error")
	}
}

func TestNotesFileParses(t *testing.T) {
	if _, err := ReadNotes("notes.txt"); err != nil {
		t.Fatal(err)
	}
}

func writeNotes(t *testing.T, text string) []Note {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	notes, err := ReadNotes(path)
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestDocTable: the table of docs/conformance.md is current with what it
// is made from. Its counts are its rows', the tests it says pass are
// those of passing.txt (which CI runs), and every other row says what
// the first note of notes.txt matching it says: a note edited without
// `make conformance-table` fails here.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, counts, err := ReadTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("docs/conformance.md has no table rows")
	}
	if c := Count(rows); c != counts {
		t.Errorf("the page says %s, its rows count %s", counts, c)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := PageCounts(readme); !ok || c != counts {
		t.Errorf("README.md says %s (found: %v), docs/conformance.md %s", c, ok, counts)
	}
	notes, err := ReadNotes("notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	passing := map[string]bool{}
	for _, name := range Passing() {
		passing[name] = true
	}
	for _, r := range rows {
		if r.Verdict == Passes {
			if !passing[r.Name] && !Flaky(r.Name) {
				t.Errorf("passes in the table, not in passing.txt: %s", r.Name)
			}
			delete(passing, r.Name)
			continue
		}
		if want := judge(Result{Name: r.Name, Outcome: Failed}, notes); want != r {
			t.Errorf("the table says %q (%s), notes.txt %q (%s): %s", r.Why, r.Verdict, want.Why, want.Verdict, r.Name)
		}
	}
	for name := range passing {
		t.Errorf("in passing.txt, not passing in the table: %s", name)
	}
}

func TestReadTable(t *testing.T) {
	rows := []Row{
		{Name: "[sig-a] x [Conformance]", Verdict: Passes},
		{Name: "[sig-a] y | z", Verdict: Fails, Why: "a | b"},
		{Name: "[sig-b] w", Verdict: NotApplicable, Why: "pods"},
	}
	doc, err := Replace([]byte(BeginMarker+"\n"+EndMarker+"\n"), fmt.Sprintf("**%s** (passes / applicable / total)\n\n%s", Count(rows), Markdown(rows)))
	if err != nil {
		t.Fatal(err)
	}
	got, counts, err := ReadTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	if counts != (Counts{Passes: 1, Applicable: 2, Total: 3}) || !slices.Equal(got, rows) {
		t.Errorf("ReadTable = %+v %s, want %+v", got, counts, rows)
	}
	page, err := ReplaceCounts([]byte("It passes **COUNTS** of them; **9 / 9 / 9** stays."), counts)
	if err != nil || string(page) != "It passes **1 / 2 / 3** of them; **9 / 9 / 9** stays." {
		t.Errorf("ReplaceCounts: %q, %v", page, err)
	}
	if c, ok := PageCounts(page); !ok || c != counts {
		t.Errorf("PageCounts = %s, %v", c, ok)
	}
}
