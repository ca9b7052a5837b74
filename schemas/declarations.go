package schemas

// Declarations are what one source outside the schema directory declares
// (a CustomResourceDefinition of the API: ParseCRD), parsed and compiled,
// ready for Loader.LoadWith. They are immutable: one value may be loaded
// again and again, as long as its source does not change.
type Declarations struct {
	source   string
	digest   string
	files    []*fileDecl
	problems []Problem
}

// Source is the name the declarations were parsed under.
func (d *Declarations) Source() string { return d.source }

// Digest is the SHA-256 (hex) of the parsed bytes.
func (d *Declarations) Digest() string { return d.digest }

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
	ld.digests[d.source] = d.digest
	ld.probs.list = append(ld.probs.list, d.problems...)
	for _, fd := range cloneAll(d.files) {
		if !b.refuses(fd, ld.probs) {
			ld.files = append(ld.files, fd)
		}
	}
}
