package schemas

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// Loader loads one schema directory again and again, as specd serve does
// while it follows the directory: a file whose bytes are the same as at
// the previous load is not parsed and compiled again, so a reload after
// one file changed costs about that file. Each load still reads every
// file, and assembles again the groups whose declarations changed
// (reuse.go), so the result is exactly what Load would return. A Loader
// is used by one goroutine at a time.
type Loader struct {
	dir     string
	builtin []Builtin
	parsed  map[string]parsedFile // by file name, as of the previous load
	// builtinRead are the files of the built-ins that never change, by
	// index in builtin (builtinFiles).
	builtinRead map[int]builtinRead
	// groups are the groups of the last load that loaded, for the next
	// to reuse where their declarations did not change (reuse.go).
	groups map[string]*builtGroup
}

// parsedFile is what parsing one file's content gave.
type parsedFile struct {
	digest string
	decls  []*fileDecl // none when the file was unusable
	probs  []Problem
}

// NewLoader returns a Loader of dir. The files of builtin are loaded
// with it, first, at every load (package schemas/builtin has specd's).
func NewLoader(dir string, builtin ...Builtin) *Loader {
	return &Loader{dir: dir, builtin: builtin, parsed: map[string]parsedFile{}, builtinRead: map[int]builtinRead{}}
}

// Load reads the directory as Load does, with the built-in files. Digests
// are the SHA-256 (hex) of every schema file's content, by file name (dir
// joined with its path, or a built-in file's reported name), also when
// the load fails. A file of the directory that declares a built-in or
// reserved group is a problem, and is left out.
func (l *Loader) Load() (reg *Registry, digests map[string]string, err error) {
	return l.LoadWith()
}

// LoadWith is Load with declarations from outside the directory, such as
// the CustomResourceDefinitions of the API (ParseCRD), assembled into the
// same Registry and checked against the files: a group and resource that
// both declare is a problem naming both. Their problems are the load's.
func (l *Loader) LoadWith(extra ...*Declarations) (reg *Registry, digests map[string]string, err error) {
	// Sized for what the last load read and extra, so that a load of
	// thousands of CRDs does not grow them again and again.
	n := len(l.parsed) + len(extra)
	ld := &loading{l: l, probs: &problems{}, next: make(map[string]parsedFile, len(l.parsed)),
		digests: make(map[string]string, n), files: make([]*fileDecl, 0, n+len(extra))}
	builtins := newBuiltinSet(l.builtin)
	for i, bi := range l.builtin {
		if err := ld.readBuiltin(i, bi, builtins); err != nil {
			return nil, nil, err
		}
	}
	if l.dir != "" {
		if err := ld.readDir(builtins); err != nil {
			return nil, nil, err
		}
	}
	for _, d := range extra {
		ld.add(d, builtins)
	}
	l.parsed = ld.next
	a := &assembly{probs: ld.probs, prev: l.groups}
	reg, groups := a.run(ld.files)
	if err := ld.probs.err(); err != nil {
		a.rollback()
		return nil, ld.digests, err
	}
	l.groups = groups
	return reg, ld.digests, nil
}

// LoadBuiltin loads the built-in files alone, as a Loader loads them
// (the core group allowed), for tests and tools.
func LoadBuiltin(builtin ...Builtin) (*Registry, error) {
	reg, _, err := NewLoader("", builtin...).Load()
	return reg, err
}

// readDir reads the Loader's directory; its files may not declare a
// group of b.
func (ld *loading) readDir(b builtinSet) error {
	if _, err := os.Stat(ld.l.dir); err != nil {
		return fmt.Errorf("%w: %w", ErrNoDir, err)
	}
	fsys := os.DirFS(ld.l.dir)
	paths, err := schemaFiles(fsys)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoDir, err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Join(ld.l.dir, filepath.FromSlash(p))
	}
	for _, fds := range ld.readAll(fsys, paths, names, false) {
		for _, fd := range fds {
			if !b.refuses(fd, ld.probs) {
				ld.files = append(ld.files, fd)
			}
		}
	}
	return nil
}

// loading is what one Load collects.
type loading struct {
	l       *Loader
	probs   *problems
	files   []*fileDecl
	next    map[string]parsedFile
	digests map[string]string
}

// readAll reads and parses the files paths of fsys, reported as names,
// in their order; it returns each one's declarations (as parsed, to be
// copied for assembly), none for a file that cannot be used.
func (ld *loading) readAll(fsys fs.FS, paths, names []string, builtin bool) [][]*fileDecl {
	return ld.record(names, ld.l.readFiles(fsys, paths, names, builtin))
}

// readFiles reads and parses the files paths of fsys, reported as names;
// a file that cannot be read has problems and no digest.
func (l *Loader) readFiles(fsys fs.FS, paths, names []string, builtin bool) []parsedFile {
	data := make([][]byte, len(paths))
	read := make([]bool, len(paths))
	unread := make([]Problem, len(paths))
	for i, p := range paths {
		var err error
		if data[i], err = fs.ReadFile(fsys, p); err != nil {
			unread[i] = Problem{File: names[i], Message: fmt.Sprintf("cannot read file: %v", err)}
		}
		read[i] = err == nil
	}
	parsed := l.parseAll(names, data, read, builtin)
	for i := range parsed {
		if !read[i] {
			parsed[i] = parsedFile{probs: []Problem{unread[i]}}
		}
	}
	return parsed
}

// record notes the files parsed, reported as names, in the load, and
// returns each one's declarations.
func (ld *loading) record(names []string, parsed []parsedFile) [][]*fileDecl {
	out := make([][]*fileDecl, len(parsed))
	for i, pf := range parsed {
		ld.probs.list = append(ld.probs.list, pf.probs...)
		if pf.digest == "" {
			continue // not read
		}
		ld.next[names[i]] = pf
		ld.digests[names[i]] = pf.digest
		out[i] = pf.decls
	}
	return out
}

// parseAll parses the data of each file read on every core:
// parsing (YAML, kin-openapi's decoding, CEL) is nearly all of a load,
// and no file's parse depends on another's.
func (l *Loader) parseAll(names []string, data [][]byte, read []bool, builtin bool) []parsedFile {
	out := make([]parsedFile, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(names); i = int(next.Add(1)) - 1 {
				if read[i] {
					out[i] = l.parse(names[i], data[i], builtin)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// readBuiltin reads the files of bi, whose groups b then reserves.
func (ld *loading) readBuiltin(i int, bi Builtin, b builtinSet) error {
	names, parsed, err := ld.l.builtinFiles(i, bi)
	if err != nil {
		return err
	}
	for _, fds := range ld.record(names, parsed) {
		for _, fd := range fds {
			b.claim(fd)
			ld.files = append(ld.files, fd)
		}
	}
	return nil
}

// builtinFiles are the names of the files of bi, the Loader's i-th
// built-in, and what parsing them gave. The files of an embed.FS, as
// specd's are, never change: they are read and digested once, not on
// every load (each CRD created is three).
func (l *Loader) builtinFiles(i int, bi Builtin) ([]string, []parsedFile, error) {
	if read, ok := l.builtinRead[i]; ok {
		return read.names, read.parsed, nil
	}
	paths, names, err := bi.files()
	if err != nil {
		return nil, nil, err
	}
	parsed := l.readFiles(bi.FS, paths, names, true)
	if _, fixed := bi.FS.(embed.FS); fixed {
		l.builtinRead[i] = builtinRead{names: names, parsed: parsed}
	}
	return names, parsed, nil
}

// builtinRead is what a Loader read of the files of a built-in.
type builtinRead struct {
	names  []string
	parsed []parsedFile
}

// parse parses data (of a built-in file or not), or returns what parsing
// the same bytes gave last time. It only reads l.parsed, so parseAll may
// call it from several goroutines.
func (l *Loader) parse(name string, data []byte, builtin bool) parsedFile {
	digest := fileDigest(data)
	if pf, ok := l.parsed[name]; ok && pf.digest == digest {
		return pf
	}
	probs := &problems{}
	fds := parseSchemaFile(name, digest, data, builtin, probs)
	return parsedFile{digest: digest, decls: fds, probs: probs.list}
}

// clone copies what assemble changes (each resource version is filled in
// and linked to its Resource), so that a parsed file can be assembled
// into several registries, one of them perhaps being served; side (nil
// for none) gives the copy its conversion rules. The compiled schemas
// are shared: they are immutable.
func (fd *fileDecl) clone(side *sideRules) *fileDecl {
	c := *fd
	c.resources = make([]*resourceDecl, len(fd.resources))
	for i, r := range fd.resources {
		c.resources[i] = r.clone(side, fd.version)
	}
	return &c
}

// clone copies r, of a file of version, as fileDecl.clone does.
func (r *resourceDecl) clone(side *sideRules, version string) *resourceDecl {
	c := *r
	rv := *r.rv
	c.rv = &rv
	c.origin = r
	c.side = side
	if side != nil {
		c.takeRules(side, version)
	}
	return &c
}

// fileDigest is the SHA-256 (hex) of a schema file's content.
func fileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
