package schemas

// Declared is a schema document that does not come from a file of the
// schema directory: specd's CustomResourceDefinition API turns each
// version of a CRD object stored in etcd into one (engine/crd). It enters
// the registry as a file does, through the same parser, compiler and
// checks, at every load (Loader.LoadDeclared).
type Declared struct {
	// Name stands for a file's path: problems and ResourceVersion.File
	// name the document by it. Names are unique among a load's documents.
	Name string
	// Data is the document, in specd's schema format.
	Data []byte
	// Owner is the object that declares the document, such as
	// "customresourcedefinition widgets.example.com": a resource is
	// declared by one owner (or by schema files alone), and several
	// owners may each declare resources of one group version, as CRDs
	// of one group do.
	Owner string
}

// owned records d's owner on a copy of the declaration it parsed into.
func (fd *fileDecl) owned(owner string) {
	fd.owner = owner
	for _, r := range fd.resources {
		r.rv.Owner = owner
		r.rv.AllowBreaking = fd.allowBreaking
	}
}

// readDeclared adds the declared documents; like the directory's files,
// they may not declare a group of b.
func (ld *loading) readDeclared(declared []Declared, b builtinSet) {
	for _, d := range declared {
		pf := ld.l.parse(d.Name, d.Data, false)
		ld.next[d.Name] = pf
		ld.digests[d.Name] = pf.digest
		ld.probs.list = append(ld.probs.list, pf.probs...)
		if pf.decl == nil {
			continue
		}
		fd := pf.decl.clone()
		fd.owned(d.Owner)
		if !b.refuses(fd, ld.probs) {
			ld.files = append(ld.files, fd)
		}
	}
}

// checkOneOwner reports a kind whose versions come from different owners
// (a CRD object and a schema file, or two CRDs): the whole resource is
// one CRD's, or the schema files'. Each declaration is reported, naming
// the first.
func checkOneOwner(k *kindDecls, probs *problems) {
	first := k.decls[0]
	for _, r := range k.decls[1:] {
		if r.rv.Owner != first.rv.Owner {
			probs.add(r.file, r.at("kind"), "kind %s is declared both by %s and by %s; a resource is declared by one CustomResourceDefinition or by schema files",
				k.kind, describeOwner(first), describeOwner(r))
		}
	}
}

func describeOwner(r *resourceDecl) string {
	if r.rv.Owner == "" {
		return "schema file " + r.file
	}
	return r.rv.Owner + " (" + r.file + ")"
}
