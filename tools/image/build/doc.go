// Package build makes specd's OCI image without a daemon, a registry or a
// base image: it compiles specd and the example plugins for each
// platform, lays them with a root file system of a few files (CA
// certificates, /etc/passwd and /etc/group for user 65532, a data
// directory) into layers of its own, and joins the platforms' images in
// one image index, written as an OCI image layout.
//
// Two builds of one commit give the same digest: the binaries are built
// with -trimpath, every file in a layer has the commit's time
// (SOURCE_DATE_EPOCH when set), the entries are sorted, and the CA
// certificates come from a Go module pinned in go.sum rather than from
// the machine (certs.go says why).
package build
