#!/usr/bin/env bash
# Runs `specd bench` against a fresh specd serving examples/bench on a free
# loopback port with its own embedded etcd, then stops it. Extra arguments go
# to specd bench (e.g. --objects 2000).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-18080}
data=$(mktemp -d)
bin/specd serve --schemas examples/bench --data-dir "$data" --listen "127.0.0.1:$port" --log-level warn &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 300); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
	sleep 0.1
done
bin/specd bench --server "http://127.0.0.1:$port" --pid "$pid" "$@"
