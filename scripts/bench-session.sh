#!/usr/bin/env bash
# bench-session.sh — a turn's cost does not grow with its session (issue 24):
# `agent prompt --session` and a one-shot `agent chat --session` (a fake
# Ollama that answers at once) on a session of 40,000 messages against the
# same on a session of 2, in one workspace (scripts/genstate -session).
# The target: the long session within 1.3x of the short one. Called by
# bench.sh; alone:
#
#   scripts/bench-session.sh        # prints a markdown table on stdout, progress on stderr
#
# Environment: BENCH_WORK (default $TMPDIR/agent-bench: the workspace is
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

ws="$work/session-long"
if [ ! -f "$ws/.generated" ]; then
    echo >&2 "bench-session.sh: generating a session of 40,000 messages in $ws"
    rm -rf "$ws"
    "$bin" -q --home "$ws" init --agent-name Atlas --user-name Igor
    "$work/genstate" -db "$ws/state.db" -session short -turns 1
    "$work/genstate" -db "$ws/state.db" -session long -turns 20000
    touch "$ws/.generated"
fi

"$work/fakeollama" -addr 127.0.0.1:0 -default "ok" >"$work/fakeollama-session.out" 2>&1 &
fake=$!
trap 'kill $fake 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q '127.0.0.1:' "$work/fakeollama-session.out" && break; sleep 0.1; done
addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/fakeollama-session.out" | head -n 1)

# median of 21 process runs after 3 warm-ups, wall time from fork to exit
wall() { OLLAMA_HOST=$addr "$work/benchrun" -wall 21 "$@"; }
row() {
    local label=$1; shift
    local short long
    short=$(wall "$bin" --home "$ws" "$@" --session short "how do I list files sorted by size")
    long=$(wall "$bin" --home "$ws" "$@" --session long "how do I list files sorted by size")
    printf '| %s | %s ms | %s ms | %s× | ≤ 1.3× |\n' "$label" "$short" "$long" "$(awk -v a="$long" -v b="$short" 'BEGIN { printf "%.2f", a / b }')"
}
echo
echo "| a turn in a session of, wall, median | 2 messages | 40,000 messages | ratio | target |"
echo "|---|---|---|---|---|"
echo >&2 "bench-session.sh: timing"
row '`agent prompt --session`' prompt
row 'one-shot `agent chat --session`, fake model' chat --no-log
