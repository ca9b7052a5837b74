// Package chaos is specd's member-failure test: a 3-member etcd cluster
// (test/chaos/etcdmember, each member a process of its own), two `specd
// serve` replicas on it, writers and watchers on both; it kills etcd
// members and a specd replica with SIGKILL and brings each back, then
// checks that no acknowledged write was lost or duplicated and that every
// watcher saw exactly etcd's history of its resource. It prints the
// errors each client saw in each phase (docs/performance.md, "Operations:
// member failures").
//
//	go test ./test/chaos/ -v -count 1
//
// TestMain builds specd and etcdmember into a temporary directory, unless
// $SPECD_BIN points at a prebuilt specd.
package chaos
