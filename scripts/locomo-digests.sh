#!/usr/bin/env bash
# locomo-digests.sh — does distillation help or hurt recall? Evidence recall of `agent memory search` on the LoCoMo
# development split twice, through scripts/locomo.sh: the raw logs alone, then the raw logs plus weekly digests. The
# digests are extractive (scripts/digestbench: no model, so the figure is reproducible here) but go through the real
# distillation path — chunking, citation checks, budget, atomic writes — and are indexed like any digest.
#
#   scripts/locomo-digests.sh                  # budgets 1000/2000/4000, k=50; the headline is overall (cat 1-4) @2000
#
# Environment: BENCH_DATA (default <repo>/../shared/bench/data), AGENT_BIN (default <repo>/bin/agent, built if
# missing), DIGEST_PER_PART (headline lines picked per part of a week, default 5). Extra arguments go to locomo.py eval.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$root/../shared/bench/data}
[ -d "$data/locomo-dev" ] || { echo "locomo-digests.sh: no $data/locomo-dev (set BENCH_DATA)" >&2; exit 1; }
bench=$(cd "$data/.." && pwd)
export AGENT_BIN=${AGENT_BIN:-$root/bin/agent}
[ -x "$AGENT_BIN" ] || make -C "$root" build >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-locomo-digests.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A bench tree of our own beside the scorer's: its scripts linked, its data copied, then distilled.
mkdir -p "$work/bench/data"
for f in "$bench"/*.py "$bench"/*.sh; do ln -s "$f" "$work/bench/"; done
cp -R "$data/locomo-dev" "$work/bench/data/"
chmod -R u+w "$work/bench/data"
(cd "$root" && go run -tags sqlite_fts5 ./scripts/digestbench -per-part "${DIGEST_PER_PART:-5}" "$work"/bench/data/locomo-dev/conv-*/) >&2

headline() { grep -m1 '^| overall (cat 1-4) ' "$1" | awk -F'|' '{gsub(/ /, "", $5); print $5}'; }

echo "## raw logs"
LOCOMO_BACKENDS=agent "$root/scripts/locomo.sh" --md "$work/raw.md" "$@"
echo "## raw logs + weekly digests"
BENCH_DATA="$work/bench/data" LOCOMO_BACKENDS=agent "$root/scripts/locomo.sh" --md "$work/digests.md" "$@"

raw=$(headline "$work/raw.md")
dig=$(headline "$work/digests.md")
echo "locomo-digests: evidence recall, overall (cat 1-4) @2000 chars: raw logs $raw, raw logs + digests $dig"
awk -v r="$raw" -v d="$dig" 'BEGIN { if (d + 0 < r + 0) { print "locomo-digests: digests LOWER recall" > "/dev/stderr"; exit 1 } }'
