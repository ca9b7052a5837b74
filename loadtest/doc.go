// Package loadtest is specd's own load tool, run as `specd bench`.
//
// It speaks only the Kubernetes REST conventions, so it measures specd and
// a real kube-apiserver (with a CRD) the same way. It creates --objects
// objects of one resource, named obj-00000, obj-00001, ..., each with a
// spec of --fields string fields f00, f01, ... of --field-size characters
// (about 1.7 KB of JSON with the defaults), and runs these phases in the
// order --phases gives:
//
//	create      POST each object to the collection (201)
//	get         GET each object
//	list        GET the whole collection in one request, --list-repeat times,
//	            checking the <Kind>List item count
//	list-paged  walk the collection with limit=--page-size and continue,
//	            --list-repeat times, checking the item count of each walk
//	update      GET each object, change spec.f00 and PUT it back with its
//	            resourceVersion; a 409 Conflict starts again from the GET
//	            (up to --max-retries); one operation's latency covers it all
//	delete      DELETE each object
//	crds        POST --crds CRDs (not in the default run), one after
//	            another, and wait for each, with a watch, until it is
//	            Established; every --crd-step CRDs, report their mean time,
//	            the server's RSS and its CPU per CRD (utime+stime of
//	            /proc/PID/stat). CRD i is c<i>s in crds.bench.specd.io,
//	            or in g<i>.crds.bench.specd.io with --crd-groups each
//
// Per phase it reports the operations, the errors by HTTP status code (or
// "transport", "count-mismatch", "bad-response"), the duration, operations
// per second, the exact p50/p90/p99/max latency over every operation, and
// the server's resident memory (VmRSS of /proc/PID/status) before and after
// the phase, and its CPU per operation over the phase (utime+stime of
// /proc/PID/stat, in 10 ms ticks); after create, the RSS growth per 10,000
// objects. The server
// process is --pid, or on Linux the process that listens on the server's
// loopback port (found through /proc/net/tcp{,6} and /proc/*/fd); otherwise
// the RSS columns say "unknown".
//
// One http.Client with keep-alive connections for every worker serves the
// whole run; --concurrency workers share the operations of a phase; the run
// stops by itself at --timeout, reporting the phases it ran. With
// --kubeconfig the host, TLS and credentials come from the kubeconfig
// (client-go's clientcmd); an explicit --server still wins. Before the
// phases, the tool creates the namespace on servers that have the core
// namespaces API, and stops with a clear error if the collection is not
// served.
//
// The report is a table on stdout, or JSON with --output json (durations
// in milliseconds, sizes in bytes, unknown values null). The exit code is 0
// when every phase ran without an error, 1 otherwise, 2 for bad flags.
//
// Against specd with the example benchmark schema:
//
//	specd serve --schemas examples/bench --data-dir /tmp/specd-bench &
//	specd bench --objects 10000 --concurrency 16
//
// Against a kube-apiserver serving the same kind as a CRD:
//
//	specd bench --kubeconfig ~/.kube/config --output json
//
// The objects' names are fixed, so a run that skips the delete phase
// leaves objects behind and the next create gets 409 AlreadyExists.
package loadtest
