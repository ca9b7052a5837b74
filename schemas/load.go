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
// visible links beside them).
func schemaFiles(fsys fs.FS) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && schemaExts[strings.ToLower(path.Ext(p))] {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}
