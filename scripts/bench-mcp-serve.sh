#!/usr/bin/env bash
# bench-mcp-serve.sh — agent mcp serve (issue 47) on ws-M: a search through
# the server, from the client's call to its result (the Go SDK's client, in
# process and over stdio to the real binary), against `agent memory search`
# in process and against the recall the server runs; what the server adds
# to that recall (the paired median, query by query); and the server's
# start-up, from the fork to the tools listed. Called by bench.sh; alone:
#
#   scripts/bench-mcp-serve.sh      # prints a markdown table on stdout, progress on stderr
#
# Environment: BENCH_DATA (queries.txt, ws-M.tar.gz), BENCH_WORK (default
# $TMPDIR/agent-bench: ws-M unpacked there by bench.sh, or here), AGENT_BIN
# (default <repo>/bin/agent).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$root/../shared/bench/data}
work=${BENCH_WORK:-${TMPDIR:-/tmp}/agent-bench}
bin=${AGENT_BIN:-$root/bin/agent}
tags=${GO_TAGS:-sqlite_fts5,netgo,osusergo,sqlite_omit_load_extension}
[ -x "$bin" ] || make -C "$root" build >&2
mkdir -p "$work"
[ -d "$work/ws-M" ] || tar -xzf "$data/ws-M.tar.gz" -C "$work"

echo >&2 "bench-mcp-serve.sh: agent mcp serve on ws-M"
ws="$work/ws-M-serve"
rm -rf "$ws" && cp -R "$work/ws-M" "$ws"
rm -f "$ws/state.db"* "$ws/index.db"*
"$bin" -q --home "$ws" init --agent-name Atlas --user-name Igor
"$bin" -q --home "$ws" memory reindex
out=$(cd "$root" && AGENT_BIN="$bin" AGENT_BENCH_WS="$ws" AGENT_BENCH_QUERIES="$data/queries.txt" \
    go test -tags "$tags" -run '^$' -bench 'ServeSearch|ServeStartup' -benchtime 60x ./core/mcpserve/) || {
    echo "$out" >&2
    exit 1
}
metric() { awk -v m="$1" '{ for (i = 2; i <= NF; i++) if ($i == m) print $(i-1) }' <<<"$out"; }
startup=$(awk '/^BenchmarkServeStartup/ { for (i = 2; i <= NF; i++) if ($i == "p50-ms") print $(i-1) }' <<<"$out")
echo
echo "| agent mcp serve on ws-M (median of 60, the shared queries) | ours | target |"
echo "|---|---|---|"
echo "| search through the server over stdio, client call to result | $(metric stdio-p50-ms) ms | |"
echo "| search through the server in process, client call to result | $(metric server-p50-ms) ms | |"
echo "| \`agent memory search\` in process (index.Search, fresh: a stat walk, snippets) | $(metric memory-search-p50-ms) ms | (info) |"
echo "| the recall memory_search runs (files watched, as the server runs it) | $(metric recall-p50-ms) ms | |"
echo "| what the server adds to that recall, paired: in process / over stdio | $(metric server-minus-recall-p50-ms) ms / $(metric stdio-minus-recall-p50-ms) ms | a few ms |"
echo "| start-up: fork to initialize answered and tools listed | $startup ms | (info) |"
