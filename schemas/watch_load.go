package schemas

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Loader loads one schema directory again and again, as specd serve does
// while it follows the directory: a file whose bytes are the same as at
// the previous load is not parsed and compiled again, so a reload after
// one file changed costs about that file. Each load still reads every
// file and assembles a new Registry, so the result is exactly what Load
// would return. A Loader is used by one goroutine at a time.
type Loader struct {
	dir    string
	parsed map[string]parsedFile // by file name, as of the previous load
}

// parsedFile is what parsing one file's content gave.
type parsedFile struct {
	digest string
	decl   *fileDecl // nil when the file was unusable
	probs  []Problem
}

// NewLoader returns a Loader of dir.
func NewLoader(dir string) *Loader {
	return &Loader{dir: dir, parsed: map[string]parsedFile{}}
}

// Load reads the directory as Load does. Digests are the SHA-256 (hex) of
// every schema file's content, by file name (dir joined with its path),
// also when the load fails.
func (l *Loader) Load() (reg *Registry, digests map[string]string, err error) {
	if _, err := os.Stat(l.dir); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoDir, err)
	}
	fsys := os.DirFS(l.dir)
	paths, err := schemaFiles(fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoDir, err)
	}
	probs := &problems{}
	files := make([]*fileDecl, 0, len(paths))
	next := make(map[string]parsedFile, len(paths))
	digests = make(map[string]string, len(paths))
	for _, p := range paths {
		name := filepath.Join(l.dir, filepath.FromSlash(p))
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			probs.add(name, "", "cannot read file: %v", err)
			continue
		}
		pf := l.parse(name, data)
		next[name] = pf
		digests[name] = pf.digest
		probs.list = append(probs.list, pf.probs...)
		if pf.decl != nil {
			files = append(files, pf.decl.clone())
		}
	}
	l.parsed = next
	reg = assemble(files, probs)
	if err := probs.err(); err != nil {
		return nil, digests, err
	}
	return reg, digests, nil
}

// parse parses data, or returns what parsing the same bytes gave last
// time.
func (l *Loader) parse(name string, data []byte) parsedFile {
	digest := fileDigest(data)
	if pf, ok := l.parsed[name]; ok && pf.digest == digest {
		return pf
	}
	probs := &problems{}
	fd := parseFile(name, digest, data, probs)
	return parsedFile{digest: digest, decl: fd, probs: probs.list}
}

// clone copies what assemble changes (each resource version is filled in
// and linked to its Resource), so that a parsed file can be assembled
// into several registries, one of them perhaps being served. The compiled
// schemas are shared: they are immutable.
func (fd *fileDecl) clone() *fileDecl {
	c := *fd
	c.resources = make([]*resourceDecl, len(fd.resources))
	for i, r := range fd.resources {
		rc := *r
		rv := *r.rv
		rc.rv = &rv
		c.resources[i] = &rc
	}
	return &c
}

// fileDigest is the SHA-256 (hex) of a schema file's content.
func fileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
