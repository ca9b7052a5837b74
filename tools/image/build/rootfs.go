package build

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user specd runs as: 65532, the "nonroot" of distroless images, so
// that a cluster's policies written for those apply unchanged.
const (
	UID  = 65532
	User = "specd"
)

// Where things are in the image.
const (
	BinPath     = "/usr/local/bin/specd"
	PluginsDir  = "/usr/local/lib/specd/plugins"
	DataDir     = "/var/lib/specd"
	CertsFile   = "/etc/ssl/certs/ca-certificates.crt"
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// entry is one file, folder or link of a layer.
type entry struct {
	name     string // without the leading slash
	mode     int64  // permission bits
	uid      int
	typ      byte // tar.TypeReg or tar.TypeDir
	body     []byte
	fromFile string // read the body from this file instead
}

func dir(name string, mode int64, uid int) entry {
	return entry{name: name, mode: mode, uid: uid, typ: tar.TypeDir}
}

func file(name string, mode int64, body []byte) entry {
	return entry{name: name, mode: mode, typ: tar.TypeReg, body: body}
}

func executable(name, from string) entry {
	return entry{name: name, mode: 0o755, typ: tar.TypeReg, fromFile: from}
}

// baseEntries are the files every platform's image shares: the folders,
// the users and the CA certificates.
func baseEntries(certs []byte) []entry {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", User, UID, UID, User, DataDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", User, UID)
	return []entry{
		dir("etc", 0o755, 0),
		file("etc/group", 0o644, []byte(group)),
		file("etc/passwd", 0o644, []byte(passwd)),
		dir("etc/ssl", 0o755, 0),
		dir("etc/ssl/certs", 0o755, 0),
		file(strings.TrimPrefix(CertsFile, "/"), 0o644, certs),
		// Go's os.TempDir, where plugins' sockets go; a read-only root
		// needs a volume here.
		dir("tmp", 0o1777, 0),
		dir("usr", 0o755, 0),
		dir("usr/local", 0o755, 0),
		dir("usr/local/bin", 0o755, 0),
		dir("usr/local/lib", 0o755, 0),
		dir("usr/local/lib/specd", 0o755, 0),
		dir(strings.TrimPrefix(PluginsDir, "/"), 0o755, 0),
		dir("var", 0o755, 0),
		dir("var/lib", 0o755, 0),
		// specd makes its data directory 0700 itself; it is the user's
		// so that it can.
		dir(strings.TrimPrefix(DataDir, "/"), 0o700, UID),
	}
}

// binaryEntries are one platform's programs.
func binaryEntries(b *binaries) []entry {
	es := []entry{executable(strings.TrimPrefix(BinPath, "/"), b.specd)}
	for _, p := range b.plugins {
		es = append(es, executable(strings.TrimPrefix(path.Join(PluginsDir, p), "/"), path.Join(b.dir, p)))
	}
	return es
}

// layerOf is a gzip-compressed OCI layer of entries, sorted, each with
// the time created and owned by root unless said otherwise: its bytes
// depend on nothing else.
func layerOf(entries []entry, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	if err := writeTar(&buf, entries, created); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithCompressedCaching, tarball.WithCompressionLevel(gzip.BestCompression), tarball.WithMediaType(types.OCILayer))
}

// writeTar writes entries to w as a tar, sorted by name (so a folder
// comes before what it holds), each dated created.
func writeTar(w io.Writer, entries []entry, created time.Time) error {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	tw := tar.NewWriter(w)
	for _, e := range entries {
		if err := writeEntry(tw, e, created); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("image: tar: %w", err)
	}
	return nil
}

func writeEntry(tw *tar.Writer, e entry, created time.Time) error {
	body := e.body
	if e.fromFile != "" {
		var err error
		if body, err = os.ReadFile(e.fromFile); err != nil {
			return fmt.Errorf("image: %w", err)
		}
	}
	name := e.name
	if e.typ == tar.TypeDir {
		name += "/"
	}
	hdr := &tar.Header{
		Typeflag: e.typ, Name: name, Mode: e.mode, Size: int64(len(body)),
		Uid: e.uid, Gid: e.uid, ModTime: created,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("image: %s: %w", e.name, err)
	}
	if _, err := tw.Write(body); err != nil {
		return fmt.Errorf("image: %s: %w", e.name, err)
	}
	return nil
}
