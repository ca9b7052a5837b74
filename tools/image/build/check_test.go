package build_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

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

// checkLabels: version, the commit of HEAD, and the source.
func checkLabels(t *testing.T, what string, labels map[string]string) {
	t.Helper()
	head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	if rev := labels[build.LabelRevision]; strings.TrimSuffix(rev, "-dirty") != strings.TrimSpace(string(head)) {
		t.Errorf("%s: revision %q, want HEAD %s", what, rev, head)
	}
	if labels[build.LabelVersion] == "" || labels[build.LabelSource] != build.DefaultSource || labels[build.LabelCreated] == "" {
		t.Errorf("%s: %v, want a version, the source %s and a creation time", what, labels, build.DefaultSource)
	}
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
