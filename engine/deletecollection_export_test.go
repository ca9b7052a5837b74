package engine

// SetDeleteCollectionPage sets how many objects a deletecollection without
// a limit lists at once, until the returned function restores it.
func SetDeleteCollectionPage(n int64) (restore func()) {
	old := deleteCollectionPage
	deleteCollectionPage = n
	return func() { deleteCollectionPage = old }
}
