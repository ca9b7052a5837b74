// Package configvolume writes a directory the way the kubelet writes and
// updates a ConfigMap or Secret volume (kube's AtomicWriter, in
// pkg/volume/util), so that tests can prove that what watches a
// directory survives such an update.
//
// The files live in a hidden, timestamped folder (..2026_11_29_06_40_12.123456789);
// ..data is a link to it, and each visible name is a link through ..data
// (a.yaml -> ..data/a.yaml). An update writes a new timestamped folder,
// swings ..data to it by renaming a new link over the old one (the one
// atomic step), adds links for new names, removes the links of names
// that went, and then removes the old folder.
package configvolume
