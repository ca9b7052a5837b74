package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The OCI annotation and label keys the image carries
// (github.com/opencontainers/image-spec, annotations.md).
const (
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelCreated  = "org.opencontainers.image.created"
	LabelTitle    = "org.opencontainers.image.title"
	LabelRefName  = "org.opencontainers.image.ref.name"
)

// Build compiles specd for every platform of o and returns the image
// index of their images. scratch holds the binaries while it runs.
func Build(ctx context.Context, o Options, scratch string) (v1.ImageIndex, error) {
	certs, err := caCertificates()
	if err != nil {
		return nil, err
	}
	base, err := layerOf(baseEntries(certs), o.Created)
	if err != nil {
		return nil, err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range o.Platforms {
		img, err := platformImage(ctx, o, p, base, filepath.Join(scratch, p.OS+"-"+p.Architecture))
		if err != nil {
			return nil, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant}},
		})
	}
	return mutate.Annotations(idx, o.labels()).(v1.ImageIndex), nil
}

// platformImage is the image of one platform: the base layer, then a
// layer of its binaries.
func platformImage(ctx context.Context, o Options, p v1.Platform, base v1.Layer, dir string) (v1.Image, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	bins, err := compile(ctx, o, p, dir)
	if err != nil {
		return nil, err
	}
	top, err := layerOf(binaryEntries(bins), o.Created)
	if err != nil {
		return nil, err
	}
	img, err := mutate.ConfigFile(empty.Image, o.configFile(p))
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	created := v1.Time{Time: o.Created}
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created, CreatedBy: "specd tools/image: /etc, CA certificates, user " + User}},
		mutate.Addendum{Layer: top, History: v1.History{Created: created, CreatedBy: "specd tools/image: specd " + o.Version + " and the example plugins"}},
	)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), types.OCIConfigJSON)
	return mutate.Annotations(img, o.labels()).(v1.Image), nil
}

// configFile is the image configuration of p: specd as the entrypoint,
// run as user 65532 in its data directory.
func (o Options) configFile(p v1.Platform) *v1.ConfigFile {
	return &v1.ConfigFile{
		Architecture: p.Architecture,
		OS:           p.OS,
		Variant:      p.Variant,
		Created:      v1.Time{Time: o.Created},
		Config: v1.Config{
			User:       fmt.Sprintf("%d:%d", UID, UID),
			Entrypoint: []string{BinPath},
			Env:        []string{"PATH=" + defaultPath},
			WorkingDir: DataDir,
			Labels:     o.labels(),
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
}

// labels are the image's org.opencontainers.image.* labels, also its
// manifests' annotations.
func (o Options) labels() map[string]string {
	return map[string]string{
		LabelTitle:    "specd",
		LabelVersion:  o.Version,
		LabelRevision: o.Revision,
		LabelSource:   o.Source,
		LabelCreated:  o.Created.Format(time.RFC3339),
	}
}
