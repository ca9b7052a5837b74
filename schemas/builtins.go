package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
)

// Builtin is a set of schema files built into specd (package
// schemas/builtin): the Kubernetes kinds specd serves as resources like
// the user's own. A Loader loads them before the schema directory, at
// every load, into the same Registry; a user file may not declare a
// group they declare or one of Reserved.
type Builtin struct {
	// FS holds the files, read as a schema directory is.
	FS fs.FS
	// Name is the directory problems in FS's files are reported under:
	// "builtin" names a file "builtin/<path in FS>".
	Name string
	// Reserved are the groups no user file may declare: at least those
	// FS's files declare, and those specd serves in code.
	Reserved []string
	// Essential are the groups --disable may not name, because specd
	// itself relies on them (RBAC authorization reads its roles and
	// bindings) or serves them in code. Every other built-in group,
	// version or resource may be disabled.
	Essential []string
}

// builtinSet is the built-in files of a load, and the groups they and
// their Reserved lists take from the user's files.
type builtinSet struct {
	list     []Builtin
	reserved map[string]string // group -> what reserves it
}

func newBuiltinSet(list []Builtin) builtinSet {
	b := builtinSet{list: list, reserved: map[string]string{}}
	for _, bi := range list {
		for _, g := range bi.Reserved {
			b.reserved[g] = "reserved by " + bi.Name
		}
	}
	return b
}

// claim records the groups a built-in file declares as reserved.
func (b builtinSet) claim(fd *fileDecl) {
	if fd.hasGroup {
		b.reserved[fd.group] = "declared by " + fd.file
	}
}

// refuses reports a user file that declares a reserved group or the
// core group, at its x-specd.group, and tells whether it must be left out.
func (b builtinSet) refuses(fd *fileDecl, probs *problems) bool {
	if !fd.hasGroup || fd.side != nil {
		return false
	}
	why, taken := b.reserved[fd.group]
	if !taken && fd.group == "" {
		why, taken = "only built-in files declare it", true
	}
	if !taken {
		return false
	}
	probs.add(fd.file, fd.groupAt, "group %q is built into specd (%s); a schema file may not declare it", fd.group, why)
	return true
}

// files lists bi's schema files as (path in FS, reported name) pairs.
func (bi Builtin) files() (paths, names []string, err error) {
	if paths, err = schemaFiles(bi.FS); err != nil {
		return nil, nil, fmt.Errorf("built-in schemas %s: %w", bi.Name, err)
	}
	names = make([]string, len(paths))
	for i, p := range paths {
		names[i] = path.Join(bi.Name, p)
	}
	return paths, names, nil
}

// ErrBuiltin is returned (wrapped) by CheckNotEssential.
var ErrBuiltin = errors.New("schemas: built-in group")

// CheckNotEssential returns an error when group is one of the Essential
// groups of builtin, which --disable may not switch off.
func CheckNotEssential(group string, builtin ...Builtin) error {
	for _, bi := range builtin {
		if slices.Contains(bi.Essential, group) {
			return fmt.Errorf("%w: %s is built into specd", ErrBuiltin, group)
		}
	}
	return nil
}
