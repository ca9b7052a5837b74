#!/usr/bin/env bash
# Runs `specd bench` against a fresh specd serving examples/bench with its
# own embedded etcd, then stops it. specd listens on a loopback port the
# kernel picks and says which in its log. By default it serves HTTPS and
# the load tool uses the admin kubeconfig specd writes (a client
# certificate, as kube-apiserver is measured); INSECURE=1 serves plain
# HTTP instead. Extra arguments go to specd bench (e.g. --objects 2000).
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
log="$data/specd.log"
serve=(--schemas examples/bench --data-dir "$data/data" --listen 127.0.0.1:0)
if [ "${INSECURE:-}" = 1 ]; then serve+=(--insecure-serving); fi
bin/specd serve "${serve[@]}" 2>"$log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT
url=
for _ in $(seq 300); do
	url=$(sed -n 's/.*msg=serving address=\([^ ]*\).*/\1/p' "$log")
	if [ -n "$url" ]; then break; fi
	if ! kill -0 "$pid" 2>/dev/null; then cat "$log" >&2; exit 1; fi
	sleep 0.1
done
if [ -z "$url" ]; then echo "specd did not say where it serves:" >&2; cat "$log" >&2; exit 1; fi
client=(--server "$url")
if [ "${url#https:}" != "$url" ]; then client+=(--kubeconfig "$data/data/admin.kubeconfig"); fi
bin/specd bench "${client[@]}" --pid "$pid" "$@"
