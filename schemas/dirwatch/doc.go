// Package dirwatch tells when the files under a directory change, so that
// specd serve can reload its schema directory while it runs.
//
// It watches the directory and every folder under it (folders created
// later included) with fsnotify, and reports changes only once the tree
// has been quiet for a while: editors and tools write a file in several
// steps (truncate, write, rename a temporary file over it), and a reload
// in the middle would read a half-written file. A stream of changes that
// never goes quiet is still reported now and then (Options.MaxWait), so a
// busy directory cannot hold a reload back for ever.
//
// It says that something changed, not what: the caller reads the whole
// tree again (package schemas keeps what did not change).
package dirwatch
