#!/usr/bin/env bash
# Compares Go benchmarks before and after a change: the benchmarks BENCH
# (a -bench pattern) of package PKG at git ref BASE (main by default)
# against the work tree, in ROUNDS (4) alternating rounds under nice, so
# that a busy machine slows both sides alike, then prints benchstat's
# comparison. The benchmark must exist at BASE too. BENCHSTAT names the
# benchstat command (benchstat on the PATH by default; it is
# golang.org/x/perf/cmd/benchstat). Extra arguments go to each run (e.g.
# -test.benchtime=20x).
#
#   make bench-compare PKG=./engine/rbac/ BENCH=BenchmarkAggregations
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PKG:?PKG=./some/package/}" "${BENCH:?BENCH=BenchmarkName}"
base=${BASE:-main}
rounds=${ROUNDS:-4}
benchstat=${BENCHSTAT:-benchstat}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach --quiet "$tmp/base" "$base"
(cd "$tmp/base" && go test -c -o "$tmp/before.test" "$PKG")
go test -c -o "$tmp/after.test" "$PKG"
# Each binary runs in its own package directory, as go test runs it.
before_dir="$tmp/base/$PKG" after_dir="$PWD/$PKG"
for i in $(seq "$rounds"); do
	echo "round $i/$rounds: $(uptime)" >&2
	(cd "$before_dir" && nice "$tmp/before.test" -test.run '^$' -test.bench "$BENCH" -test.benchmem "$@") >>"$tmp/before.txt"
	(cd "$after_dir" && nice "$tmp/after.test" -test.run '^$' -test.bench "$BENCH" -test.benchmem "$@") >>"$tmp/after.txt"
done
"$benchstat" "before=$tmp/before.txt" "after=$tmp/after.txt"
