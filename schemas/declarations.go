package schemas

// Declarations are what one source outside the schema directory declares
// (a CustomResourceDefinition of the API: ParseCRD), parsed and compiled,
// ready for Loader.LoadWith. One value may be loaded again and again, as
// long as its source does not change. Nothing changes them once parsed
// but MarkTerminating and MarkInstalling, which the CRD API calls before it hands them to a
// load.
type Declarations struct {
	source   string
	digest   string
	files    []*fileDecl
	problems []Problem
	// terminating, installing: MarkTerminating, MarkInstalling was
	// called.
	terminating, installing bool
}

// Source is the name the declarations were parsed under.
func (d *Declarations) Source() string { return d.source }

// Digest is the SHA-256 (hex) of the parsed bytes.
func (d *Declarations) Digest() string { return d.digest }

// MarkTerminating marks every resource d declares as declared by a CRD
// object being deleted (Resource.Terminating). The digest stays: the
// resource is the same declaration (SameDeclaration), so its watches and
// caches go on while its objects are deleted.
func (d *Declarations) MarkTerminating() {
	d.terminating = true
	for _, fd := range d.files {
		fd.terminating = true
	}
	d.each(func(r *resourceDecl) { r.terminating = true })
}

// MarkInstalling marks every resource d declares as declared by a CRD
// object that is not Established yet (Resource.Installing): loaded, not
// served. The declaration stays the same (SameDeclaration) once the CRD
// is Established and d comes again unmarked, so that reload proves
// nothing again.
func (d *Declarations) MarkInstalling() {
	d.installing = true
	for _, fd := range d.files {
		fd.installing = true
	}
	d.each(func(r *resourceDecl) { r.installing = true })
}

func (d *Declarations) each(mark func(*resourceDecl)) {
	for _, fd := range d.files {
		for _, r := range fd.resources {
			mark(r)
		}
	}
}

// ServedDigest is Digest, told apart once MarkTerminating or
// MarkInstalling is called: a reload compares these, since what is
// served changes then.
func (d *Declarations) ServedDigest() string {
	out := d.digest
	if d.terminating {
		out += "/terminating"
	}
	if d.installing {
		out += "/installing"
	}
	return out
}

// Problems are what is wrong in the source on its own; LoadWith also
// checks it against everything else it loads.
func (d *Declarations) Problems() []Problem { return d.problems }

// Err is a *LoadError with Problems, or nil.
func (d *Declarations) Err() error {
	p := &problems{list: d.problems}
	return p.err()
}

// add adds d to a load, which refuses it for a built-in or reserved group.
func (ld *loading) add(d *Declarations, b builtinSet) {
	ld.digests[d.source] = d.ServedDigest()
	ld.probs.list = append(ld.probs.list, d.problems...)
	for _, fd := range d.files {
		if !b.refuses(fd, ld.probs) {
			ld.files = append(ld.files, fd)
		}
	}
}
