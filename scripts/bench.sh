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
# The floors are built as the Makefile builds bin/agent (GO_TAGS, GO_STATIC
# from make bench), so they differ from agent only in what they do.
tags=${GO_TAGS:-sqlite_fts5,netgo,osusergo,sqlite_omit_load_extension}
static=${GO_STATIC-"-linkmode external -extldflags -static"}
(cd "$root" && go build -tags sqlite_fts5 -o "$work/benchrun" ./scripts/benchrun &&
    go build -tags "$tags" -ldflags "$static" -o "$work/gofloor" ./scripts/benchrun/gofloor &&
    go build -tags "$tags,stackfloor" -ldflags "$static" -o "$work/stackfloor" ./scripts/benchrun/gofloor)
"$work/benchrun" -agent "$bin" -gofloor "$work/gofloor" -stackfloor "$work/stackfloor" -data "$data" -work "$work" "$@"

# Chat: the per-turn overhead — everything but the model's own time — with a
# fake Ollama that answers at once, on a copy of ws-M (turns append to the log).
echo >&2 "bench.sh: chat turn overhead on ws-M"
chatws="$work/ws-M-chat"
rm -rf "$chatws" && cp -R "$work/ws-M" "$chatws"
rm -f "$chatws/state.db"* "$chatws/index.db"*
"$bin" -q --home "$chatws" init --agent-name Atlas --user-name Igor
inproc=$(cd "$root" && AGENT_BENCH_WS="$chatws" go test -tags "$tags" -run '^$' -bench 'TurnOverhead' -benchtime 60x ./core/ |
    awk '/^BenchmarkTurnOverhead\// { split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); for (i = 1; i < NF; i++) if ($(i+1) == "p50-ms") print n[2], $i }')
(cd "$root" && go build -o "$work/fakeollama" ./core/ollamatest/cmd/fakeollama)
"$work/fakeollama" -addr 127.0.0.1:0 -default "ok" >"$work/fakeollama.out" 2>&1 &
fake=$!
trap 'kill $fake 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q '127.0.0.1:' "$work/fakeollama.out" && break; sleep 0.1; done
addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/fakeollama.out" | head -n 1)
# one process per run, wall time from fork to exit, median of 21 after 3
# warm-up runs (timed by benchrun, not by the shell, whose own forks would
# add milliseconds)
wall() { OLLAMA_HOST=$addr "$work/benchrun" -wall 21 "$@"; }
oneshot=$(wall "$bin" --home "$chatws" chat --no-log "how do I list files sorted by size")
# again with `agent memory watch` vouching for the index (no stat walk)
"$bin" --home "$chatws" memory watch 2>/dev/null &
watcher=$!
trap 'kill $fake $watcher 2>/dev/null' EXIT
for _ in $(seq 600); do [ -S "$chatws/.watch.sock" ] && break; sleep 0.1; done
oneshotw=$(wall "$bin" --home "$chatws" chat --no-log "how do I list files sorted by size")
kill -INT $watcher && wait $watcher
# again with 3 integrations configured, their tools cached (one `mcp list`),
# none called: no server starts; the cost is reading mcp.json and the cache
(cd "$root" && go build -o "$work/mcptestserver" ./core/mcp/mcptest/cmd/mcptestserver)
for n in a b c; do "$bin" -q --home "$chatws" mcp add "$n" -- "$work/mcptestserver"; done
"$bin" --home "$chatws" mcp list >/dev/null
oneshot3=$(wall "$bin" --home "$chatws" chat --no-log "how do I list files sorted by size")
rm -f "$chatws/mcp.json"
startup=$(wall "$bin" --version)
# The floor of a turn on this stack: the stack floor (see the search figures)
# running only the turn's recall statement for the same message (k 6).
recallsql=$("$work/benchrun" -print-sql "how do I list files sorted by size" -k 6 -home "$chatws")
chatfloor=$(wall "$work/stackfloor" "$chatws/index.db" "$recallsql")
# ... and the floor of a whole turn: that recall, then what any turn must do
# besides: open state.db, ask the server for its version and the model, store
# the message durably, send it, store the reply (gofloor -turn, turn.go).
rm -f "$work/floor.db"*
turnfloor=$(wall "$work/stackfloor" -turn "$chatws/index.db" "$recallsql" "$work" "http://$addr")
sqlitefloor=$(wall sqlite3 "$chatws/index.db" "$recallsql")
echo
echo "| chat figure | ours | target |"
echo "|---|---|---|"
echo "$inproc" | awk '$1 == "walk" { printf "| per-turn overhead in-process, p50, stat walk each turn (one-shot path) | %s ms | (info) |\n", $2 }
                   $1 == "monitor" { printf "| per-turn overhead in-process, p50, REPL (inotify monitor) | %s ms | ≤ 10 ms |\n", $2 }'
echo "| one-shot \`agent chat\` process, wall, median, \`agent memory watch\` running | $oneshotw ms ($(awk -v a="$oneshotw" -v f="$turnfloor" 'BEGIN { printf "%.2f", a / f }')× the floor of a whole turn; $(awk -v a="$oneshotw" -v f="$chatfloor" 'BEGIN { printf "%.2f", a / f }')× the recall-only floor) | ≤ 1.2× the floor of a turn |"
echo "| one-shot \`agent chat\` process, wall, median, no watcher (stat walk) | $oneshot ms ($(awk -v a="$oneshot" -v f="$turnfloor" 'BEGIN { printf "%.2f", a / f }')× the floor of a whole turn) | (info) |"
echo "| one-shot \`agent chat\` process, wall, median, no watcher, 3 integrations configured, none called | $oneshot3 ms | ≤ $(awk -v o="$oneshot" 'BEGIN { printf "%.1f", o * 1.05 }') ms (+5%) |"
echo "| for scale: \`agent --version\` process, wall, median | $startup ms | |"
echo "| floor: the stack floor running only the turn's recall statements, wall, median | $chatfloor ms | |"
echo "| floor of a whole turn: that recall, then state.db opened, version and model asked, message stored, request sent, reply stored (gofloor -turn), wall, median | $turnfloor ms | |"
echo "| for scale: the sqlite3 CLI running that statement, wall, median | $sqlitefloor ms | |"

# Search by meaning (docs/decisions-index.md, "Embeddings"): the brute-force
# scan of stored paragraph vectors, per paragraph, and what that makes a
# query on ws-M (~203,000 paragraphs) and the 96 MB workspace (~1,000,000).
echo >&2 "bench.sh: vector scan"
echo
echo "| vector search (brute force) | per paragraph | vectors, ws-M / 96 MB | a query, ws-M / 96 MB |"
echo "|---|---|---|---|"
(cd "$root" && go test -tags "$tags" -run '^$' -bench 'VectorScan' -benchtime 3x ./index/) |
    awk '/^BenchmarkVectorScan\// { split($1, n, "[=-]"); for (i = 1; i < NF; i++) { if ($(i+1) == "ns/unit") ns = $i; if ($(i+1) == "kB-vector/unit") kb = $i }
        printf "| %s dimensions | %.1f µs | %.0f MB / %.0f MB | %.2f s / %.1f s |\n", n[2], ns / 1000, kb * 203, kb * 1000, ns * 203000 / 1e9, ns * 1e6 / 1e9 }'

# Recall with and without digests (docs/cli-distill.md): LoCoMo dev split, extractive digests.
echo >&2 "bench.sh: evidence recall, raw logs vs raw logs + digests"
BENCH_DATA="$data" AGENT_BIN="$bin" "$root/scripts/locomo-digests.sh" | grep '^locomo-digests:'

bash "$root/scripts/bench-cache.sh"
BENCH_WORK=$work AGENT_BIN=$bin "$root/scripts/bench-statedb.sh"
BENCH_WORK=$work AGENT_BIN=$bin "$root/scripts/bench-session.sh"
BENCH_WORK=$work AGENT_BIN=$bin "$root/scripts/bench-sync.sh"
BENCH_DATA="$data" BENCH_WORK=$work AGENT_BIN=$bin "$root/scripts/bench-mcp-serve.sh"

# Secrets (memory/secrets, docs/decisions-secrets.md): caught/total over a
# corpus of secrets in the forms people paste them, touched/total over code
# and notes that only name them; then the markers it would insert into the
# Go and Python standard libraries and the shared corpora (each one listed
# in $work/secretsbench.hits). Alone: go run ./scripts/secretsbench -h.
echo >&2 "bench.sh: secrets corpus"
pystdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' 2>/dev/null || true)
echo
(cd "$root" && go run ./scripts/secretsbench -go "$(go env GOROOT)/src" ${pystdlib:+-py "$pystdlib"} -data "$data") 2>"$work/secretsbench.hits" ||
    echo >&2 "bench.sh: the secrets corpus missed its target (see above)"

# Notes in Chinese, Japanese, Korean and Thai (issue 34, docs/decisions-cjk.md):
# recall of the same questions in three languages, and a build of 10,000
# mixed-language notes (BASE_BIN=<an older agent> adds its figures beside).
BENCH_WORK=$work AGENT_BIN=$bin "$root/scripts/bench-multilingual.sh"

# Memory in daily use (issue 46, docs/decisions-index.md, "Measured"): a
# generated diary, notes with front matter, chats with wrong answers, and
# questions with time words and typos; each category's recall.
echo >&2 "bench.sh: memory in daily use"
echo
(cd "$root" && go run -tags "$tags" ./scripts/memorybench) ||
    echo >&2 "bench.sh: memorybench failed"

# Journal (core/journal, docs/decisions-journal.md): a device reading a year
# of another's changes (5,000 entries) for the first time, and what every
# command pays when no journal changed (three devices' journals, a year each).
echo >&2 "bench.sh: journal replay"
echo
echo "| journal | time |"
echo "|---|---|"
(cd "$root" && go test -tags "$tags" -run '^$' -bench 'JournalReplayYear' -benchtime 5x ./core/journal/ &&
    go test -tags "$tags" -run '^$' -bench 'JournalNoChange' ./core/journal/) |
    awk '/^BenchmarkJournalReplayYear/ { printf "| replay of a year (5,000 entries) | %.0f ms |\n", $3 / 1e6 }
         /^BenchmarkJournalNoChange/   { printf "| no-change check at a command'"'"'s start | %.0f µs |\n", $3 / 1e3 }'
