package console

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core (MPL-2.0), the accessibility rules of Deque
// that browsers' own audits run, as npm ci installs the version
// axe/package-lock.json pins: nothing of it is committed.
func axeSource(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join("axe", "package-lock.json")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("axe", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	npm(t, dir, "npm", "ci", "--no-audit", "--no-fund")
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// axeViolation is one rule a page breaks, with the elements that break it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// checkAccessibility runs axe-core's WCAG 2 A and AA rules (labels,
// names, contrast, landmarks, keyboard focus order) on tab's page and
// fails the test with each violation.
func checkAccessibility(t *testing.T, tab context.Context, axe, page string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	// Evaluated by the DevTools protocol, which the page's
	// Content-Security-Policy does not govern: the page itself loads
	// nothing but its own files.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](axe+";0")); err != nil {
		t.Fatalf("%s: load axe-core: %v", page, err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => JSON.stringify({violations: r.violations, passes: r.passes.length}))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: run axe-core: %v", page, err)
	}
	var result struct {
		Violations []axeViolation `json:"violations"`
		Passes     int            `json:"passes"`
	}
	if err := json.Unmarshal([]byte(raw), &result); err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if result.Passes == 0 {
		t.Fatalf("%s: axe-core checked nothing", page)
	}
	t.Logf("%s: %d axe-core rules pass, %d fail", page, result.Passes, len(result.Violations))
	for _, v := range result.Violations {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, n.HTML)
		}
		t.Errorf("%s: %s (%s, %s) at %d elements:\n  %s", page, v.ID, v.Impact, v.Help, len(v.Nodes), strings.Join(where, "\n  "))
	}
}
