package versions

import (
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/schemagen"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestManyTypesKubectl: with 1,000 resources in 200 group versions,
// kubectl's discovery is one aggregated request and lists every resource,
// and a changed file among them is served promptly.
func TestManyTypesKubectl(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, err := schemagen.Write(dir, schemagen.Standard)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	t.Logf("specd ready with 1,000 resources in %s", time.Since(start).Round(time.Millisecond))
	k := harness.NewKubectl(t, s)

	start = time.Now()
	r := k.Run(t, "api-resources", "-v=6")
	if r.Code != 0 {
		t.Fatalf("kubectl api-resources:\n%s", r)
	}
	t.Logf("kubectl api-resources took %s", time.Since(start).Round(time.Millisecond))
	n := 0
	for _, line := range strings.Split(r.Stdout, "\n") {
		if strings.Contains(line, ".bench.example.com/v1") {
			n++
		}
	}
	if n != 1000 {
		t.Errorf("kubectl api-resources lists %d generated resources, want 1000", n)
	}
	// One request for /api and one for /apis, both aggregated: not one per
	// group version.
	// kubectl -v=6 logs each response: "Response" verb="GET" url=...
	gets := strings.Count(r.Stderr, `"Response" verb="GET"`)
	t.Logf("kubectl api-resources made %d requests", gets)
	if gets == 0 {
		t.Fatalf("no request found in kubectl -v=6's log (has its format changed?):\n%s", r.Stderr)
	}
	if gets > 4 {
		t.Errorf("kubectl made %d discovery requests, want at most 4 (aggregated discovery):\n%s", gets, r.Stderr)
	}

	harness.WriteFile(t, dir, strings.TrimPrefix(files[7], dir+"/"),
		schemagen.File(7, schemagen.Standard.KindsPerGroup, "            note: {type: string}\n"))
	harness.Eventually(t, "the changed file is served", func() bool {
		r := k.Run(t, "explain", "kind00s."+schemagen.Group(7)+".spec.note")
		return r.Code == 0 && strings.Contains(r.Stdout, "note")
	})
}
