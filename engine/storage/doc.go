// Package storage is the contract between the engine and the store of
// object bytes: Storage (create-if-absent, get, list with pages, update and
// delete if the revision still matches, watch from a revision), the values
// and events it returns, and its sentinel errors.
//
// It is a leaf: it imports nothing of specd's, so the engine above it and
// the implementations beside it (engine/etcdstorage) depend on it and not
// on each other, as etcd's logic sits on its storage backend.
// storagetest holds the conformance suite every implementation must pass.
package storage
