package build

import (
	"archive/tar"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// WriteLayout writes idx as an OCI image layout in dir, replacing what
// was there: index.json names it by the version (ref.name), so that
// `skopeo copy oci:DIR:VERSION` or `crane push` finds it.
func WriteLayout(dir string, idx v1.ImageIndex, version string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("image: write %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{LabelRefName: version})); err != nil {
		return fmt.Errorf("image: write %s: %w", dir, err)
	}
	return nil
}

// WriteArchive writes the OCI layout in dir as one tar file (an "OCI
// archive": `podman load -i`, `skopeo copy oci-archive:FILE` and Docker
// 25 and later's `docker load` read it), its entries sorted and dated
// created, so it is as reproducible as the layout.
func WriteArchive(dir, file string, created time.Time) error {
	var entries []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			entries = append(entries, entry{name: filepath.ToSlash(rel), mode: 0o755, typ: tar.TypeDir})
			return nil
		}
		entries = append(entries, entry{name: filepath.ToSlash(rel), mode: 0o644, typ: tar.TypeReg, fromFile: p})
		return nil
	})
	if err != nil {
		return fmt.Errorf("image: archive %s: %w", dir, err)
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer f.Close()
	if err := writeTar(f, entries, created); err != nil {
		return err
	}
	return f.Close()
}
