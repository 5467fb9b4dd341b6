#!/usr/bin/env bash
# locomo.sh — evidence recall of `agent memory search` on the LoCoMo development split, side by side with the
# reference FTS5 baseline, per LoCoMo category. The data and scorer live outside the repo (../shared/bench); the
# conversations are copied to a temporary directory first, because the agent backend writes state.db and index.db
# into each workspace.
#
#   scripts/locomo.sh                      # summary tables on stdout (markdown), scorer progress on stderr
#   scripts/locomo.sh --md /tmp/locomo.md  # also the scorer's full tables for k=50, written there
#   LOCOMO_BACKENDS=agent scripts/locomo.sh
#
# Two tables: (1) "all evidence within B characters" (B = 1000/2000/4000, hits' texts in rank order, k=50) per
# category (single-hop, multi-hop, temporal, open-domain, overall of the four); (2) recall@k: all evidence among
# the first k hits, whatever their length, for k = LOCOMO_KS (default "5 10 50"): what a user of
# `agent memory search -k K` sees. Environment: BENCH_DATA (default <repo>/../shared/bench/data), AGENT_BIN
# (default <repo>/bin/agent, built if missing), LOCOMO_BACKENDS (default "fts5 agent"), LOCOMO_KS. Extra
# arguments go to locomo.py eval (the k=50 run).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$root/../shared/bench/data}
[ -d "$data" ] || { echo "locomo.sh: no $data (set BENCH_DATA)" >&2; exit 1; }
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
ks=${LOCOMO_KS:-5 10 50}
AGENT_BIN=$bin python3 "$scorer" eval --out "$work" "${backends[@]}" --k 50 --json "$work/k50.json" "$@" >/dev/null
for k in $ks; do
    [ "$k" = 50 ] && continue
    AGENT_BIN=$bin python3 "$scorer" eval --out "$work" "${backends[@]}" --k "$k" --json "$work/k$k.json" >/dev/null
done

# The two tables, from the scorer's JSON summaries.
python3 - "$work" $ks <<'PY'
import json, os, sys
work, ks = sys.argv[1], sys.argv[2:]
runs = {k: json.load(open(os.path.join(work, "k%s.json" % k))) for k in ks}
base = runs.get("50") or runs[ks[-1]]
backends = list(base["results"])
groups = ["4 single-hop", "1 multi-hop", "2 temporal", "3 open-domain", "overall (cat 1-4)"]
def row(run, b, g):
    return next(d for d in run["results"][b]["summary"] if d["group"] == g)
budgets = base["budgets"]
print("### LoCoMo dev: all evidence within B characters (k=50)\n")
hdr = ["category", "n"] + ["%s all@%d" % (b, B) for b in backends for B in budgets]
print("| " + " | ".join(hdr) + " |\n|" + "---|" * len(hdr))
for g in groups:
    cells = [g, str(row(base, backends[0], g)["n"])]
    cells += ["%.3f" % row(base, b, g)["all_%d" % B] for b in backends for B in budgets]
    print("| " + " | ".join(cells) + " |")
print("\n### LoCoMo dev: recall@k (all evidence among the first k hits, no budget)\n")
hdr = ["category"] + ["%s @%s" % (b, k) for b in backends for k in ks]
print("| " + " | ".join(hdr) + " |\n|" + "---|" * len(hdr))
for g in groups:
    cells = [g] + ["%.3f" % row(runs[k], b, g)["all_k"] for b in backends for k in ks]
    print("| " + " | ".join(cells) + " |")
for b in backends:
    r = base["results"][b]
    print("\n%s: search %.2f ms/query mean (k=50), index build %.2f s" % (b, r["search_ms_mean"], r["index_s"]))
PY
