package build

import (
	"fmt"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// PlatformSize is what one platform's image costs.
type PlatformSize struct {
	Platform v1.Platform
	// Compressed is what a pull downloads: the compressed layers, the
	// configuration and the manifest.
	Compressed int64
	// Uncompressed is the layers unpacked.
	Uncompressed int64
}

// Sizes are the sizes of idx's images, in its order.
func Sizes(idx v1.ImageIndex) ([]PlatformSize, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	var sizes []PlatformSize
	for _, desc := range im.Manifests {
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return nil, fmt.Errorf("image: %w", err)
		}
		s, err := sizeOf(img)
		if err != nil {
			return nil, err
		}
		s.Platform = *desc.Platform
		sizes = append(sizes, s)
	}
	return sizes, nil
}

func sizeOf(img v1.Image) (PlatformSize, error) {
	var s PlatformSize
	m, err := img.Manifest()
	if err != nil {
		return s, fmt.Errorf("image: %w", err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return s, fmt.Errorf("image: %w", err)
	}
	s.Compressed = int64(len(raw)) + m.Config.Size
	layers, err := img.Layers()
	if err != nil {
		return s, fmt.Errorf("image: %w", err)
	}
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return s, fmt.Errorf("image: %w", err)
		}
		s.Compressed += n
		u, err := uncompressedSize(l)
		if err != nil {
			return s, err
		}
		s.Uncompressed += u
	}
	return s, nil
}

func uncompressedSize(l v1.Layer) (int64, error) {
	rc, err := l.Uncompressed()
	if err != nil {
		return 0, fmt.Errorf("image: %w", err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if err != nil {
		return 0, fmt.Errorf("image: %w", err)
	}
	return n, nil
}
