#!/usr/bin/env bash
# locomo.sh — evidence recall of `agent memory search` on the LoCoMo development split, side by side with the
# reference FTS5 baseline. The data and scorer live outside the repo (../shared/bench); the conversations are copied
# to a temporary directory first, because the agent backend writes state.db and index.db into each workspace.
#
#   scripts/locomo.sh                      # backends fts5 and agent, budgets 1000/2000/4000, k=50
#   LOCOMO_BACKENDS=agent scripts/locomo.sh --md /tmp/locomo.md
#
# Environment: BENCH_DATA (default <repo>/../shared/bench/data), AGENT_BIN (default <repo>/bin/agent, built if
# missing), LOCOMO_BACKENDS (default "fts5 agent"). Extra arguments go to locomo.py eval.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$root/../shared/bench/data}
scorer=$(cd "$data/.." && pwd)/locomo.py
bin=${AGENT_BIN:-$root/bin/agent}
[ -f "$scorer" ] || { echo "locomo.sh: no scorer at $scorer (set BENCH_DATA)" >&2; exit 1; }
[ -d "$data/locomo-dev" ] || { echo "locomo.sh: no $data/locomo-dev (set BENCH_DATA)" >&2; exit 1; }
if [ ! -x "$bin" ]; then
    make -C "$root" build >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-locomo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$data/locomo-dev/." "$work/"
chmod -R u+w "$work"

backends=()
for b in ${LOCOMO_BACKENDS:-fts5 agent}; do
    backends+=(--backend "$b")
done
AGENT_BIN=$bin python3 "$scorer" eval --out "$work" "${backends[@]}" "$@"
