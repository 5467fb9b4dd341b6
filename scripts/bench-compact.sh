#!/usr/bin/env bash
# bench-compact.sh — what auto-compaction costs on the real Ollama (v0.9.6, the tiny model of scripts/ollama.sh).
#
# The same scripted session twice, each turn a new process (`chat --continue --json --num-ctx N`): once as shipped
# (auto-compaction off) and once with --auto-compact. Per turn: the wall time of the whole process and Ollama's
# prompt_eval_duration, and whether a compaction ran in it (before its request). Prints a markdown table on stdout, progress on
# stderr. The tiny model's summaries are noise, so its compactions fail the citation checks and store nothing: what
# is measured is the model call itself, and that a failed one is not retried before the window moves again.
# Environment: COMPACT_TURNS (default 40), COMPACT_NUM_CTX (default 8192: the tiny model counts about one token a character), AGENT_BIN.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${AGENT_BIN:-$root/bin/agent}
turns=${COMPACT_TURNS:-40}
numctx=${COMPACT_NUM_CTX:-8192}
[ -x "$bin" ] || make -C "$root" build >&2

. "$root/scripts/ollama.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench-compact.XXXXXX")
trap 'ollama_down; rm -rf "$work"' EXIT
ollama_up >&2
export AGENT_MODEL=$OLLAMA_TINY_MODEL NO_COLOR=1

field() { grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

# session FLAGS...: prints "turn wall_ms prompt_eval_ms compacted" per turn.
session() {
	local home="$work/ws-$#" i out t0 t1
	"$bin" --home "$home" -q init --agent-name Atlas --user-name Igor
	for i in $(seq "$turns"); do
		t0=$(date +%s%N)
		out=$("$bin" --home "$home" chat --continue --json --num-ctx "$numctx" --num-predict 48 "$@" \
			"turn $i: my locker at the gym is number $((i * 7)), the tulips by the blue door need water, and the train to Porto leaves at $((i % 12 + 8)) o'clock")
		t1=$(date +%s%N)
		echo "$i $(( (t1 - t0) / 1000000 )) $(( $(field prompt_eval_duration <<<"$out") / 1000000 )) $(grep -c '"auto-compaction: ' <<<"$out" || true)"
		echo "bench-compact: $* turn $i" >&2
	done
}

off=$(session)
on=$(session --auto-compact)
paste <(echo "$off") <(echo "$on") | awk -v turns="$turns" -v numctx="$numctx" '
	{ offw += $2; onw += $6
	  if ($8 > 0) { n++; cw += $6 - $2; ownoff += $3; ownon += $7; comp[$1 + 1] = 1 } else { plainw += $6 - $2 }
	  if (comp[$1]) { nextoff += $3; nexton += $7; nn++ } }
	END {
		printf "| auto-compaction on the real Ollama (tiny model, %d turns, num_ctx %d) | off | on |\n|---|---|---|\n", turns, numctx
		printf "| whole session, wall time | %.1f s | %.1f s |\n", offw / 1000, onw / 1000
		printf "| turns with a compaction (before their request) | 0 | %d |\n", n
		if (n > 0) {
			printf "| extra wall time of a turn with a compaction (on − off, mean) | — | %.0f ms |\n", cw / n
			printf "| that turn: prompt evaluation (mean) | %.0f ms | %.0f ms |\n", ownoff / n, ownon / n
		}
		if (nn > 0) printf "| the next turn: prompt evaluation (mean) | %.0f ms | %.0f ms |\n", nextoff / nn, nexton / nn
		if (turns - n > 0) printf "| extra wall time of the other turns (mean) | — | %.0f ms |\n", plainw / (turns - n)
	}'
