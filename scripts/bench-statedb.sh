#!/usr/bin/env bash
# bench-statedb.sh — what every command costs as state.db grows (issue 14):
# `agent profile show`, `agent sessions list` and a one-shot chat turn with a
# fake Ollama that answers at once, on a workspace whose state.db holds
# 10 MB and 400 MB of chat (scripts/genstate: ~3 years). The target: the
# 400 MB figure within 1.2x of the 10 MB one. Called by bench.sh; alone:
#
#   scripts/bench-statedb.sh        # prints a markdown table on stdout, progress on stderr
#
# Environment: BENCH_WORK (default $TMPDIR/agent-bench: the two workspaces are
# generated there once and reused), AGENT_BIN (default <repo>/bin/agent).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_WORK:-${TMPDIR:-/tmp}/agent-bench}
bin=${AGENT_BIN:-$root/bin/agent}
[ -x "$bin" ] || make -C "$root" build >&2
mkdir -p "$work"
(cd "$root" && go build -tags sqlite_fts5 -o "$work/benchrun" ./scripts/benchrun &&
    go build -tags sqlite_fts5 -o "$work/genstate" ./scripts/genstate &&
    go build -o "$work/fakeollama" ./core/ollamatest/cmd/fakeollama)

sizes="10 400"
for mb in $sizes; do
    ws="$work/statedb-$mb"
    if [ ! -f "$ws/.generated" ]; then
        echo >&2 "bench-statedb.sh: generating a $mb MB state.db in $ws"
        rm -rf "$ws"
        "$bin" -q --home "$ws" init --agent-name Atlas --user-name Igor
        "$bin" --home "$ws" profile set user.pref.tea green
        "$work/genstate" -db "$ws/state.db" -mb "$mb"
        "$bin" --home "$ws" log "generated for the state.db benchmark"
        touch "$ws/.generated"
    fi
done

"$work/fakeollama" -addr 127.0.0.1:0 -default "ok" >"$work/fakeollama-statedb.out" 2>&1 &
fake=$!
trap 'kill $fake 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q '127.0.0.1:' "$work/fakeollama-statedb.out" && break; sleep 0.1; done
addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/fakeollama-statedb.out" | head -n 1)

# median of 21 process runs after 3 warm-ups, wall time from fork to exit
wall() { OLLAMA_HOST=$addr "$work/benchrun" -wall 21 "$@"; }
row() {
    local label=$1; shift
    local small big
    small=$(wall "$bin" --home "$work/statedb-10" "$@")
    big=$(wall "$bin" --home "$work/statedb-400" "$@")
    printf '| %s | %s ms | %s ms | %s× | ≤ 1.2× |\n' "$label" "$small" "$big" "$(awk -v a="$big" -v b="$small" 'BEGIN { printf "%.2f", a / b }')"
}
echo
echo "| state.db figure, wall, median | 10 MB | 400 MB | ratio | target |"
echo "|---|---|---|---|---|"
echo >&2 "bench-statedb.sh: timing"
row '`agent profile show`' profile show
row '`agent sessions list`' sessions list
row 'one-shot `agent chat` turn, fake model' chat --session bench --no-log "how do I list files sorted by size"
