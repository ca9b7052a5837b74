// Command image builds specd's OCI image (`make image`): specd and the
// example plugins for linux/amd64 and linux/arm64 on an empty root file
// system, as one image index in an OCI image layout, and optionally the
// same layout as one tar file. No Docker daemon, registry or base image
// is involved, and two builds of one commit give the same digest
// (package build).
//
// It is a module of its own so that go-containerregistry, which brings
// the Docker CLI's packages, is no dependency of specd.
package main
