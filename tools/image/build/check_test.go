package build_test

import (
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/specd-io/specd/tools/image/build"
)

// checkIndex: an OCI image index of linux/amd64 and linux/arm64 images,
// annotated as the images are labelled.
func checkIndex(t *testing.T, idx v1.ImageIndex) {
	mt, err := idx.MediaType()
	if err != nil || mt != types.OCIImageIndex {
		t.Errorf("index media type %q (%v), want %q", mt, err, types.OCIImageIndex)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, d := range im.Manifests {
		if d.Platform == nil {
			t.Errorf("manifest %s has no platform", d.Digest)
			continue
		}
		platforms = append(platforms, d.Platform.String())
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %q, want %q", d.Platform, d.MediaType, types.OCIManifestSchema1)
		}
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(platforms, want) {
		t.Errorf("platforms %v, want %v", platforms, want)
	}
	checkLabels(t, "index annotations", im.Annotations)
}

// checkConfigs checks each platform's configuration: user, entrypoint,
// labels, platform, and two gzip layers.
func checkConfigs(t *testing.T, idx v1.ImageIndex) {
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cf.Config
		if c.User != "65532:65532" {
			t.Errorf("%s: user %q, want 65532:65532", d.Platform, c.User)
		}
		if !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/specd"}) || len(c.Cmd) != 0 {
			t.Errorf("%s: entrypoint %q, cmd %q; want [/usr/local/bin/specd] and none", d.Platform, c.Entrypoint, c.Cmd)
		}
		if c.WorkingDir != "/var/lib/specd" {
			t.Errorf("%s: working dir %q, want /var/lib/specd", d.Platform, c.WorkingDir)
		}
		if cf.OS != d.Platform.OS || cf.Architecture != d.Platform.Architecture {
			t.Errorf("%s: the configuration says %s/%s", d.Platform, cf.OS, cf.Architecture)
		}
		checkLabels(t, d.Platform.String()+" labels", c.Labels)
		checkLayers(t, d.Platform.String(), img)
	}
}

// checkLabels: the labels say what git says of the repository's HEAD,
// read here as a release reads it (hack/release): its commit, "-dirty"
// when a tracked file has changes, and its commit time (or
// $SOURCE_DATE_EPOCH) as the creation time; and the version built, and
// the source.
func checkLabels(t *testing.T, what string, labels map[string]string) {
	t.Helper()
	want := map[string]string{
		build.LabelTitle:    "specd",
		build.LabelVersion:  wantVersion(),
		build.LabelRevision: headRevision(t),
		build.LabelSource:   build.DefaultSource,
		build.LabelCreated:  sourceDate(t),
	}
	if !maps.Equal(labels, want) {
		t.Errorf("%s: %v, want %v", what, labels, want)
	}
}

// wantVersion is the version the image was built as: $SPECD_IMAGE_VERSION
// with $SPECD_IMAGE (`make test-image` sets both), else buildLayout's.
func wantVersion() string {
	if v := os.Getenv("SPECD_IMAGE_VERSION"); v != "" {
		return v
	}
	return testVersion
}

// headRevision is HEAD's commit, with "-dirty" when a tracked file has
// changes.
func headRevision(t *testing.T) string {
	t.Helper()
	rev := gitOut(t, "rev-parse", "HEAD")
	if gitOut(t, "status", "--porcelain", "--untracked-files=no") != "" {
		rev += "-dirty"
	}
	return rev
}

// sourceDate is $SOURCE_DATE_EPOCH, else HEAD's commit time, in RFC 3339
// and UTC.
func sourceDate(t *testing.T) string {
	t.Helper()
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		epoch = gitOut(t, "log", "-1", "--format=%ct", "HEAD")
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(secs, 0).UTC().Format(time.RFC3339)
}

func gitOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func checkLayers(t *testing.T, platform string, img v1.Image) {
	t.Helper()
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 2 {
		t.Fatalf("%s: config %q and %d layers, want %q and 2", platform, m.Config.MediaType, len(m.Layers), types.OCIConfigJSON)
	}
	for _, l := range m.Layers {
		if l.MediaType != types.OCILayer {
			t.Errorf("%s: layer %s of type %q, want %q", platform, l.Digest, l.MediaType, types.OCILayer)
		}
	}
}

// platformImage is idx's image for linux/arch.
func platformImage(t *testing.T, idx v1.ImageIndex, arch string) v1.Image {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == arch {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("no linux/%s image in the index", arch)
	return nil
}

func label(t *testing.T, img v1.Image, key string) string {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return cf.Config.Labels[key]
}

// compareImages says which part of two indexes' images differs.
func compareImages(t *testing.T, a, b v1.ImageIndex) {
	t.Helper()
	ma, err1 := a.IndexManifest()
	mb, err2 := b.IndexManifest()
	if err1 != nil || err2 != nil || len(ma.Manifests) != len(mb.Manifests) {
		t.Fatalf("the two indexes: %v, %v", err1, err2)
	}
	for i := range ma.Manifests {
		ia, _ := a.Image(ma.Manifests[i].Digest)
		ib, _ := b.Image(mb.Manifests[i].Digest)
		fa, _ := ia.Manifest()
		fb, _ := ib.Manifest()
		if fa.Config.Digest != fb.Config.Digest {
			t.Errorf("%s: configs %s and %s", ma.Manifests[i].Platform, fa.Config.Digest, fb.Config.Digest)
		}
		for j := range min(len(fa.Layers), len(fb.Layers)) {
			if fa.Layers[j].Digest != fb.Layers[j].Digest {
				t.Errorf("%s: layer %d is %s, then %s", ma.Manifests[i].Platform, j, fa.Layers[j].Digest, fb.Layers[j].Digest)
			}
		}
	}
}
