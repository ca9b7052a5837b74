// Command release builds specd's release binaries: specd cross-compiled
// for every supported platform (linux and darwin, amd64 and arm64), each
// static and stamped with its version, commit and build date, and a
// SHA256SUMS file that `sha256sum -c` reads. `make release` runs it.
//
// The build is reproducible: the same commit built with the same Go
// release gives the same bytes, wherever the clone is and whenever it
// runs. -trimpath keeps the clone's path out, CGO_ENABLED=0 the C
// toolchain, GOFLAGS and the GOAMD64/GOARM64 levels are fixed, the VCS
// stamp of the go command is replaced by the commit given (-buildvcs=false,
// so an uncommitted file changes nothing but the tree state), and the
// build date is the commit's, not the clock's.
package main
