#!/usr/bin/env bash
# bench-cache.sh — turn cost on the real Ollama (part of make bench).
#
# A 20-turn scripted conversation through bin/agent, each turn a new process
# (`chat --continue --json`), against the real Ollama v0.9.6 and the tiny
# model (scripts/ollama.sh). Per turn: Ollama's prompt_eval_duration and the
# share of the request's bytes that the previous request began with too
# (prefix_reuse / request_bytes). Then the model is unloaded and one more
# turn measures a cold request of the same length. Both recall placements:
# exchange (the default) and layer (the design's literal order), side by
# side. Prints a markdown table on stdout, progress on stderr.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${AGENT_BIN:-$root/bin/agent}
turns=${CACHE_TURNS:-20}
[ -x "$bin" ] || make -C "$root" build >&2

. "$root/scripts/ollama.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench-cache.XXXXXX")
trap 'ollama_down; rm -rf "$work"' EXIT
ollama_up >&2
export AGENT_MODEL=$OLLAMA_TINY_MODEL NO_COLOR=1

field() { grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

# conversation PLACEMENT: prints "turn duration_ns reuse_bytes request_bytes"
# per turn, then "cold duration_ns".
conversation() {
	local home="$work/ws-$1" i out
	"$bin" --home "$home" -q init --agent-name Atlas --user-name Igor
	"$bin" --home "$home" log "Booked flights to Lisbon for the fourth of December"
	"$bin" --home "$home" log "The plumber comes on Friday morning about the boiler"
	"$bin" --home "$home" memory add "My sister Ana lives in Porto and visits in January"
	"$bin" --home "$home" log "Planted tulips by the blue door in the garden"
	local questions=("what do my notes say about the trip?" "when does the plumber come?" "where does Ana live?" "what did I plant in the garden?" "anything else about the boiler?")
	for i in $(seq "$turns"); do
		local how=(--continue)
		[ "$i" = 1 ] && how=(--session bench)
		out=$("$bin" --home "$home" chat "${how[@]}" --json --recall-placement "$1" "turn $i: ${questions[$(( (i - 1) % 5 ))]}")
		# a fifth column: how many old messages the history window leaves out;
		# a turn where that changes is a window cut
		dropped=$(grep -o '{"name":"history"[^}]*}' <<<"$out" | field dropped)
		# a sixth: the bytes no cache can hold, this turn's context and message
		fresh=$(( $(grep -o '{"name":"memory"[^}]*}' <<<"$out" | field chars) + $(grep -o '{"name":"message"[^}]*}' <<<"$out" | field chars) ))
		echo "$i $(field prompt_eval_duration <<<"$out") $(field prefix_reuse <<<"$out") $(field request_bytes <<<"$out") ${dropped:-0} $fresh"
	done
	OLLAMA_HOST=$OLLAMA_HOST "$OLLAMA_BIN" stop "$OLLAMA_TINY_MODEL" >/dev/null 2>&1
	out=$("$bin" --home "$home" chat --continue --json --recall-placement "$1" "turn cold: what do my notes say about the trip and the boiler?")
	echo "cold $(field prompt_eval_duration <<<"$out")"
}

echo "| turn cost on the real Ollama ($turns turns, tiny model) | exchange (default) | layer (design order) | target |"
echo "|---|---|---|---|"
ex=$(conversation exchange)
ly=$(conversation layer)
stat() { # stat DATA WHAT
	awk -v what="$2" '
		$1 == "cold" { cold = $2; next }
		{ d[$1] = $2; cut[$1] = ($1 > 1 && $5 != prev); prev = $5; last = $1
		  if ($1 > 1) { r = ($4 > 0) ? $3 / $4 : 0; if (cut[$1]) { cuts++ } else { s += r; n++; if (min == "" || r < min) { min = r; minfloor = 1 - $6 / $4 } m2 += $2; n2++ } } }
		END {
			if (what == "t1") printf "%.1f ms", d[1] / 1e6
			if (what == "t2") printf "%.1f ms", d[2] / 1e6
			if (what == "tl") printf "%.1f ms%s", d[last] / 1e6, cut[last] ? " (a window cut)" : ""
			if (what == "cuts") printf "%d", cuts
			if (what == "steady") printf "%.3f×", m2 / n2 / cold
			if (what == "cold") printf "%.1f ms", cold / 1e6
			if (what == "ratio") printf "%.3f×", d[last] / cold
			if (what == "mean") { m = 0; for (i = 2; i <= last; i++) m += d[i]; printf "%.1f ms", m / (last - 1) / 1e6 }
			if (what == "reuse") printf "%.1f%% (min %.1f%%, where all but the new message and its context is %.1f%%)", 100 * s / n, 100 * min, 100 * minfloor
		}' <<<"$1"
}
echo "| prompt evaluation, turn 1 (model loading, nothing cached) | $(stat "$ex" t1) | $(stat "$ly" t1) | |"
echo "| prompt evaluation, turn 2 | $(stat "$ex" t2) | $(stat "$ly" t2) | |"
echo "| prompt evaluation, mean of turns 2–$turns | $(stat "$ex" mean) | $(stat "$ly" mean) | |"
echo "| prompt evaluation, turn $turns | $(stat "$ex" tl) | $(stat "$ly" tl) | |"
echo "| prompt evaluation, a cold request of that length (model unloaded) | $(stat "$ex" cold) | $(stat "$ly" cold) | |"
echo "| turn $turns / cold | $(stat "$ex" ratio) | $(stat "$ly" ratio) | ≤ 0.2× |"
echo "| mean of turns 2–$turns without a window cut / cold | $(stat "$ex" steady) | $(stat "$ly" steady) | |"
echo "| bytes shared with the previous request, turns 2–$turns without a window cut | $(stat "$ex" reuse) | $(stat "$ly" reuse) | ≥ 95% |"
echo "| turns on which the history window was cut | $(stat "$ex" cuts) | $(stat "$ly" cuts) | |"
