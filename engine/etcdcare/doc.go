// Package etcdcare owns the upkeep of the etcd specd stores in, the work
// an operator would otherwise do by hand to run specd for months:
//
//   - compaction of etcd's history, every --etcd-compaction-interval, on
//     the embedded etcd and an external one alike; replicas agree through
//     one key which of them compacts in each interval (Compactor);
//   - defragmentation of the embedded etcd when its file has grown well
//     past its live data (Care);
//   - recovery from etcd's NOSPACE alarm on the embedded etcd: compact,
//     defragment, and disarm the alarm once there is room (Care);
//   - the metrics of all this, and of every request to etcd
//     (etcd_request_duration_seconds, through DialOptions).
//
// Snapshots (save and restore) are in snapshot.go: they are the same
// client and the same embedded member, seen by an operator's command.
package etcdcare
