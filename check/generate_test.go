package check

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas"
)

// rounds is how many objects each test generates per resource version.
const rounds = 25

func loadDir(t *testing.T, dir string) *schemas.Registry {
	t.Helper()
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func eachVersion(reg *schemas.Registry, f func(rv *schemas.ResourceVersion)) {
	for _, g := range reg.Groups() {
		for _, r := range g.Resources {
			for _, rv := range r.Versions {
				f(rv)
			}
		}
	}
}

// checkGenerated generates objects of every version of reg and fails on
// any that does not validate; it returns how many versions it covered.
func checkGenerated(t *testing.T, reg *schemas.Registry, seed int64) int {
	t.Helper()
	n := 0
	eachVersion(reg, func(rv *schemas.ResourceVersion) {
		n++
		for round := range rounds {
			obj, err := Generator{Seed: seed}.Object(rv, round)
			if err != nil {
				t.Errorf("%s %s round %d: %v", rv.Resource.GroupResource(), rv.Version, round, err)
				return
			}
			if errs := rv.Schema.Validate(obj); len(errs) > 0 {
				t.Errorf("%s %s round %d: invalid: %v", rv.Resource.GroupResource(), rv.Version, round, errs)
			}
		}
	})
	return n
}

func TestGenerateExamples(t *testing.T) {
	reg := loadDir(t, filepath.Join("..", "examples", "schemas"))
	if n := checkGenerated(t, reg, 1); n == 0 {
		t.Fatal("no resource versions in examples/schemas")
	}
}

func TestGenerateCRDCorpus(t *testing.T) {
	corpus := crdcorpus.Dir(t)
	projects, _ := filepath.Glob(filepath.Join(corpus, "*", "crds"))
	if len(projects) == 0 {
		t.Fatalf("no projects in %s", corpus)
	}
	for _, p := range projects {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			crdcorpus.WriteSpecdFiles(t, dir, crdcorpus.Read(t, p))
			checkGenerated(t, loadDir(t, dir), 7)
		})
	}
}

func TestGenerateDeterministic(t *testing.T) {
	reg := loadDir(t, filepath.Join("..", "examples", "schemas"))
	eachVersion(reg, func(rv *schemas.ResourceVersion) {
		same, differs := 0, 0
		for round := range 10 {
			a, errA := Generator{Seed: 42}.Object(rv, round)
			b, errB := Generator{Seed: 42}.Object(rv, round)
			c, errC := Generator{Seed: 43}.Object(rv, round)
			if errA != nil || errB != nil || errC != nil {
				t.Fatalf("%s %s: %v %v %v", rv.Resource.GroupResource(), rv.Version, errA, errB, errC)
			}
			ja, jb, jc := mustJSON(t, a), mustJSON(t, b), mustJSON(t, c)
			if ja != jb {
				t.Errorf("%s %s round %d: seed 42 gave\n%s\nthen\n%s", rv.Resource.GroupResource(), rv.Version, round, ja, jb)
			}
			if ja == jc {
				same++
			} else {
				differs++
			}
		}
		if differs == 0 {
			t.Errorf("%s %s: seeds 42 and 43 gave the same 10 objects", rv.Resource.GroupResource(), rv.Version)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzGenerateExamples: whatever the seed and round, every object
// generated for the example schemas validates.
//
//	go test ./check/ -run '^$' -fuzz FuzzGenerateExamples -fuzztime 30s
func FuzzGenerateExamples(f *testing.F) {
	reg, err := schemas.Load(filepath.Join("..", "examples", "schemas"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(int64(1), 0)
	f.Add(int64(-7), 1000)
	f.Fuzz(func(t *testing.T, seed int64, round int) {
		eachVersion(reg, func(rv *schemas.ResourceVersion) {
			obj, err := Generator{Seed: seed}.Object(rv, round)
			if err != nil {
				t.Fatal(err)
			}
			if errs := rv.Schema.Validate(obj); len(errs) > 0 {
				t.Fatalf("%s %s: %v", rv.Resource.GroupResource(), rv.Version, errs)
			}
		})
	})
}
