package schemas

// SameDeclaration reports whether a and b are the same resource declared
// the same way: the same versions, the same one stored, the same ones
// served, each declared by the same file with the same content. A reload
// that keeps a resource's declaration need not disturb its watches nor
// prove its conversion again. Either may be nil (not declared). A
// resource stored with another (StoredWith) is the same only if that one
// is too: its rules convert to that one's storage version.
func SameDeclaration(a, b *Resource) bool {
	if a == nil || b == nil || a == b {
		return a == b
	}
	if a.GroupResource() != b.GroupResource() || a.StorageVersion != b.StorageVersion || len(a.Versions) != len(b.Versions) {
		return false
	}
	if (a.StoredWith != nil || b.StoredWith != nil) && !SameDeclaration(a.StoredWith, b.StoredWith) {
		return false
	}
	for i, av := range a.Versions {
		bv := b.Versions[i]
		if av.Version != bv.Version || av.Storage != bv.Storage || av.Hidden != bv.Hidden ||
			av.File != bv.File || av.FileDigest != bv.FileDigest {
			return false
		}
	}
	return true
}
