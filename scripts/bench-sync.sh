#!/usr/bin/env bash
# bench-sync.sh — agent sync (issue 38, docs/cli-sync.md): a workspace with a
# year of daily logs synced to a bare remote on disk. Two figures: a sync
# with nothing changed (target ≤ 1 s, median wall time of 21 process runs),
# and what one new log entry pushes (target: only that change — the objects
# the remote gained: the commit, the trees on the path, the one log blob).
# Called by bench.sh; alone:
#
#   scripts/bench-sync.sh           # prints a markdown table on stdout, progress on stderr
#
# Environment: BENCH_WORK (default $TMPDIR/agent-bench: the workspace and the
# remote are made there afresh each run), AGENT_BIN (default <repo>/bin/agent).
# Needs git.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_WORK:-${TMPDIR:-/tmp}/agent-bench}
bin=${AGENT_BIN:-$root/bin/agent}
[ -x "$bin" ] || make -C "$root" build >&2
command -v git >/dev/null || { echo "bench-sync.sh: git is needed" >&2; exit 1; }
mkdir -p "$work"
(cd "$root" && go build -tags sqlite_fts5 -o "$work/benchrun" ./scripts/benchrun)

# The machine's and the user's git config stay out of the figures.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/sync-gitconfig"
ws="$work/sync-ws" remote="$work/sync-remote.git"
rm -rf "$ws" "$remote" "$GIT_CONFIG_GLOBAL"
echo >&2 "bench-sync.sh: a year of logs in $ws"
"$bin" -q --home "$ws" init --agent-name Atlas --user-name Igor
# 365 days, six entries a day of a few lines each (~1 MB of notes)
for i in $(seq 0 364); do
    d=$(date -u -d "2025-11-27 +$i day" +%F)
    {
        printf '# %s\n' "$d"
        for h in 08 10 12 14 17 21; do
            printf '\n### %s:00\n\nNotes of %s at %s: met the team about the garden kiln, then read about\nsourdough, tea from Yunnan and the train times to Lyon for day %d.\n' "$h" "$d" "$h" "$i"
        done
    } >"$ws/logs/$d.md"
done
git init -q --bare "$remote"
"$bin" -q --home "$ws" sync --remote "$remote"

echo >&2 "bench-sync.sh: agent sync with no changes"
nochange=$("$work/benchrun" -wall 21 "$bin" -q --home "$ws" sync)

objects() { git -C "$remote" count-objects -v | awk '/^(count|in-pack):/ { n += $2 } END { print n }'; }
before=$(objects)
"$bin" --home "$ws" log "one new entry, after a year of notes"
"$bin" -q --home "$ws" sync
after=$(objects)
pushed=$((after - before))
# what the commit changed: the files, and the new entry's lines
changed=$(git -C "$remote" diff --name-only main~1 main | wc -l)

echo
echo "| agent sync, a year of logs (365 files) | measured | target |"
echo "|---|---|---|"
printf '| no changes (median of 21 runs) | %s ms | ≤ 1000 ms |\n' "$nochange"
printf '| one new log entry: objects pushed | %s (files changed: %s) | only that change: commit + 2 trees + 1 blob = 4 |\n' "$pushed" "$changed"
awk -v t="$nochange" 'BEGIN { exit !(t <= 1000) }' || echo >&2 "bench-sync.sh: a sync with no changes took over 1 s"
[ "$pushed" -eq 4 ] || echo >&2 "bench-sync.sh: the push carried $pushed objects, not 4"
