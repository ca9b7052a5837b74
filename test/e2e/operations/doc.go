// Package operations holds the acceptance tests of running specd: an
// external etcd (plain and TLS), a full etcd and snapshots, encryption
// at rest, the data directory's permissions, the object size limit, and
// a benchmark of the time from start to ready.
package operations
