package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNoDir is returned (wrapped) when the schema directory cannot be read.
var ErrNoDir = errors.New("schemas: cannot read schema directory")

// schemaExts are the file name extensions Load reads.
var schemaExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// Load reads every OpenAPI document and every file of
// CustomResourceDefinitions under dir (subfolders included) and returns
// the Registry they declare. If anything is wrong it returns a
// *LoadError listing every problem; problem and GroupVersion file names are
// dir joined with the file's path under it.
func Load(dir string) (*Registry, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDir, err)
	}
	return load(os.DirFS(dir), func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) })
}

// LoadFS is Load on a file system; file names are paths in fsys.
func LoadFS(fsys fs.FS) (*Registry, error) {
	return load(fsys, func(p string) string { return p })
}

func load(fsys fs.FS, name func(string) string) (*Registry, error) {
	paths, err := schemaFiles(fsys)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDir, err)
	}
	probs := &problems{}
	files := make([]*fileDecl, 0, len(paths))
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			probs.add(name(p), "", "cannot read file: %v", err)
			continue
		}
		for _, fd := range parseSchemaFile(name(p), fileDigest(data), data, false, probs) {
			if !(builtinSet{}).refuses(fd, probs) {
				files = append(files, fd)
			}
		}
	}
	reg := assemble(files, probs)
	if err := probs.err(); err != nil {
		return nil, err
	}
	return reg, nil
}

// schemaFiles lists the schema files in fsys in path order, skipping hidden
// files and folders (names starting with "."; this also skips the "..data"
// links of a Kubernetes ConfigMap volume, whose files are read through the
// visible links beside them). A link to a folder is followed, as the
// kubelet shows a volume's items that have folders (shop/v1.yaml) through
// a link of the first one (shop -> ..data/shop); a folder already walked
// is not walked again, so a link into a folder that holds it ends.
func schemaFiles(fsys fs.FS) ([]string, error) {
	w := &schemaWalk{fsys: fsys}
	err := w.walk(".")
	sort.Strings(w.paths)
	return w.paths, err
}

type schemaWalk struct {
	fsys  fs.FS
	paths []string
	dirs  []fs.FileInfo // the folders walked, to walk each once
}

func (w *schemaWalk) walk(root string) error {
	return fs.WalkDir(w.fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return w.enter(p)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := fs.Stat(w.fsys, p); err == nil && fi.IsDir() {
				return w.walk(p)
			}
		}
		if schemaExts[strings.ToLower(path.Ext(p))] {
			w.paths = append(w.paths, p)
		}
		return nil
	})
}

// enter notes the folder p, or skips it if it was walked already.
func (w *schemaWalk) enter(p string) error {
	fi, err := fs.Stat(w.fsys, p)
	if err != nil {
		return err
	}
	for _, seen := range w.dirs {
		if os.SameFile(seen, fi) {
			return fs.SkipDir
		}
	}
	w.dirs = append(w.dirs, fi)
	return nil
}
