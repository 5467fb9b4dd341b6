#!/usr/bin/env bash
# bench.sh — the index benchmarks of issue 3, each against a floor measured in the same run (make bench).
#
#   scripts/bench.sh                # 5 runs per figure; prints a markdown table on stdout, progress on stderr
#   scripts/bench.sh -runs 9        # more runs on a noisy machine
#
# Environment: BENCH_DATA (default <repo>/../shared/bench/data: ws-M.tar.gz, queries.txt, and common.py beside it),
# BENCH_WORK (default $TMPDIR/agent-bench: ws-M is unpacked and the 96 MB workspace built there once, then reused;
# nothing is written into the data directory), AGENT_BIN (default <repo>/bin/agent, built by make bench).
# Needs the sqlite3 CLI (installed with apt when missing and run as root), python3 and find.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$root/../shared/bench/data}
work=${BENCH_WORK:-${TMPDIR:-/tmp}/agent-bench}
bin=${AGENT_BIN:-$root/bin/agent}

[ -f "$data/ws-M.tar.gz" ] || { echo "bench.sh: no ws-M.tar.gz in $data (set BENCH_DATA)" >&2; exit 1; }
if ! command -v sqlite3 >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y sqlite3 >&2 || { apt-get update >&2 && apt-get install -y sqlite3 >&2; }
    else
        echo "bench.sh: the sqlite3 CLI is needed for the floors (apt-get install sqlite3)" >&2
        exit 1
    fi
fi
[ -x "$bin" ] || make -C "$root" build >&2

mkdir -p "$work"
(cd "$root" && go build -tags sqlite_fts5 -o "$work/benchrun" ./scripts/benchrun)
"$work/benchrun" -agent "$bin" -data "$data" -work "$work" "$@"
