package build_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/specd-io/specd/tools/image/build"
)

// repo is the specd repository, from this package's folder.
const repo = "../../.."

// testVersion is the version of the image the test builds when
// $SPECD_IMAGE names none.
const testVersion = "v0.0.0-test"

// buildTimeout bounds one build of both platforms: four cold go builds
// on a busy machine.
const buildTimeout = 20 * time.Minute

// TestImage reads the image `make image` built ($SPECD_IMAGE, a layout
// directory; built here when unset) with go-containerregistry, checks
// its index, configurations and root file system, runs the specd it
// holds, and builds it again to check that the digest is the same.
func TestImage(t *testing.T) {
	first := os.Getenv("SPECD_IMAGE")
	if first == "" {
		first = buildLayout(t, testVersion)
	}
	idx := readLayout(t, first)
	t.Run("index", func(t *testing.T) { checkIndex(t, idx) })
	t.Run("config", func(t *testing.T) { checkConfigs(t, idx) })
	img := platformImage(t, idx, runtime.GOARCH)
	root := t.TempDir()
	headers := unpack(t, img, root)
	t.Run("root file system", func(t *testing.T) { checkRootFS(t, root, headers) })
	t.Run("specd runs", func(t *testing.T) { checkRuns(t, root, img) })
	t.Run("reproducible", func(t *testing.T) {
		again := readLayout(t, buildLayout(t, label(t, img, build.LabelVersion)))
		if d1, d2 := digest(t, idx), digest(t, again); d1 != d2 {
			t.Errorf("two builds of one commit: index %s, then %s", d1, d2)
			compareImages(t, idx, again)
		}
	})
}

// buildLayout builds the image of the repository's HEAD, as specd
// version, into a new layout directory, as `make image` does.
func buildLayout(t *testing.T, version string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	o := build.Options{Repo: repo, Platforms: build.DefaultPlatforms, Version: version, Source: build.DefaultSource}
	if err := o.FromGit(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	idx, err := build.Build(ctx, o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	if err := build.WriteLayout(dir, idx, o.Version); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the image in %s", time.Since(start).Round(time.Second))
	return dir
}

// readLayout is the image index the layout in dir names.
func readLayout(t *testing.T, dir string) v1.ImageIndex {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations[build.LabelRefName] == "" {
		t.Fatalf("%s/index.json: %d manifests (%+v), want one image index named by ref.name", dir, len(im.Manifests), im.Manifests)
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func digest(t *testing.T, idx v1.ImageIndex) v1.Hash {
	t.Helper()
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
