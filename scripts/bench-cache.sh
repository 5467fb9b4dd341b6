#!/usr/bin/env bash
# bench-cache.sh — turn cost on the real Ollama (part of make bench).
#
# First, new sessions (issue 40): one-shot chats in a row, each a new
# session, each chat's evaluated prompt tokens against its own cold
# evaluation and beside its floor (scripts/newsession-cache.py). Then:
#
# A 20-turn scripted conversation through bin/agent, each turn a new process
# (`chat --continue --json`), against the real Ollama v0.9.6 and the tiny
# model (scripts/ollama.sh), under each chat template shape of
# core/ollamatest/templates: the tiny model's in-place one, llama3.x's (the
# default model's) and qwen2.x's. Per turn: Ollama's prompt_eval_duration
# and the share of the request's bytes that the previous request began with
# too (prefix_reuse / request_bytes). Then the model is unloaded and one
# more turn measures a cold request of the same length. Each template's
# floor is what it lets no cache keep: per later turn, the characters of
# the prompt Ollama rendered (its trace log) after the longest prefix it
# shares with the previous one, over the prompt's length — the new message
# and its context, and whatever the template prints anew (llama3.x: the
# tool list and the previous user message). That floor counts characters;
# a character at the end of a long prompt costs more than the mean one of a
# cold evaluation (attention reads everything before it), so the floor in
# time multiplies it by what a character appended to the cold prompt costs
# against one of its cold evaluation, measured apart (tailcost, below). Recall placements: exchange
# (the default) under every template, and layer (the design's literal
# order) under the in-place one, side by side. Prints markdown tables on
# stdout, progress on stderr.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${AGENT_BIN:-$root/bin/agent}
turns=${CACHE_TURNS:-20}
[ -x "$bin" ] || make -C "$root" build >&2

. "$root/scripts/ollama.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench-cache.XXXXXX")
trap 'ollama_down; rm -rf "$work"' EXIT
# level -8: the trace log, where the server writes each prompt it renders
OLLAMA_DEBUG=2 ollama_up >&2
# 16384 tokens for these: the tiny tokenizer reads real templates' role
# markers and tool list at about a character a token
for t in llama3 qwen2; do
	ollama_model "tiny-$t" "$root/core/ollamatest/templates/$t.tmpl" 16384 >&2
done
export NO_COLOR=1

field() { grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

# workspace HOME MODEL: a workspace with a few notes to recall, for MODEL.
workspace() {
	export AGENT_MODEL=$2 AGENT_NUM_CTX=8192
	[ "$2" = "$OLLAMA_TINY_MODEL" ] || AGENT_NUM_CTX=16384
	"$bin" --home "$1" -q init --agent-name Atlas --user-name Igor
	"$bin" --home "$1" log "Booked flights to Lisbon for the fourth of December"
	"$bin" --home "$1" log "The plumber comes on Friday morning about the boiler"
	"$bin" --home "$1" memory add "My sister Ana lives in Porto and visits in January"
	"$bin" --home "$1" log "Planted tulips by the blue door in the garden"
}

# conversation PLACEMENT MODEL: prints "turn duration_ns reuse_bytes
# request_bytes dropped fresh" per turn, then "cold duration_ns", then
# "floor SHARE" (floor, below).
conversation() {
	local home="$work/ws-$1-$2" i out from
	from=$(wc -l <"$OLLAMA_TMP/serve.log")
	workspace "$home" "$2"
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
	floor "$from" "$(wc -l <"$OLLAMA_TMP/serve.log")"
	OLLAMA_HOST=$OLLAMA_HOST "$OLLAMA_BIN" stop "$2" >/dev/null 2>&1
	out=$("$bin" --home "$home" chat --continue --json --recall-placement "$1" "turn cold: what do my notes say about the trip and the boiler?")
	echo "cold $(field prompt_eval_duration <<<"$out")"
	tailcost "$2" "$from" "$(field prompt_eval_duration <<<"$out")"
}

# tailcost MODEL FROM COLD_NS: what a character evaluated at the end of the
# cold request's prompt costs against one of its cold evaluation, measured
# apart from the turns: the server's last rendered prompt (the cold one) is
# sent again raw (all of it cached, with the model still loaded), then with
# a paragraph appended; the second request's prompt evaluation is that
# paragraph's. Prints "tail FACTOR".
tailcost() {
	python3 - "$OLLAMA_TMP/serve.log" "$2" "$OLLAMA_HOST" "$1" "$AGENT_NUM_CTX" "$3" <<'PY'
import ast, json, sys, urllib.request
log, first, host, model, num_ctx, cold = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
prompt = None
with open(log, encoding="utf-8", errors="replace") as f:
    for i, line in enumerate(f):
        if i >= first and 'msg="completion request"' in line and ' prompt="' in line:
            prompt = ast.literal_eval(line[line.index(' prompt="') + 8:].rstrip("\n"))
def generate(p):
    body = json.dumps({"model": model, "prompt": p, "raw": True, "stream": False,
                       "options": {"num_ctx": num_ctx, "num_predict": 1}, "keep_alive": "10m"}).encode()
    req = urllib.request.Request("http://%s/api/generate" % host, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.load(r)
para = ("Recalled memory: the plumber comes on Friday morning about the boiler, the flights to Lisbon are booked "
        "for the fourth of December, and the tulips were planted by the blue door in the garden. ") * 3
generate(prompt)
d = [generate(prompt + para)["prompt_eval_duration"], generate(prompt + para[::-1])["prompt_eval_duration"]]
print("tail %.4f" % ((min(d) / len(para)) / (cold / len(prompt))))
PY
}

# floor FROM TO: over the prompts the server rendered between those lines of
# its log, the mean share of each later prompt that follows the longest
# prefix it shares with the one before (the tiny model's tokenizer reads
# about a character a token; the previous reply's 8 tokens count as new).
floor() {
	python3 - "$OLLAMA_TMP/serve.log" "$1" "$2" <<'PY'
import ast, sys
log, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
prompts = []
with open(log, encoding="utf-8", errors="replace") as f:
    for i, line in enumerate(f):
        if first <= i < last and 'msg="completion request"' in line and ' prompt="' in line:
            prompts.append(ast.literal_eval(line[line.index(' prompt="') + 8:].rstrip("\n")))
shares = []
for a, b in zip(prompts, prompts[1:]):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    shares.append((len(b) - n) / len(b))
print("floor %.4f" % (sum(shares) / len(shares) if shares else 0))
PY
}

# newsessions MODEL: one-shot chats in a row, each a new session
# (scripts/newsession-cache.py): per chat from the second, the tokens it
# evaluated and its prompt's, and its floor's the same way; then the means.
newsessions() {
	local home="$work/ws-new-$1"
	workspace "$home" "$1"
	python3 "$root/scripts/newsession-cache.py" "$bin" "$home" "$1" "$OLLAMA_TMP/serve.log" "$chats" "$wait"
}

# What to run (BENCH_CACHE_PARTS): the later turns of a conversation
# (turns, issue 24) and new sessions (new, issue 40).
parts=${BENCH_CACHE_PARTS:-turns new}
chats=${NEWSESSION_CHATS:-5}
# all: each chat after the first starts in a minute of its own (the start
# time is the one thing that changes between two sessions of a minute; the
# chats' clock is moved on with AGENT_TEST_NOW, not waited for);
# none: back to back (newsession-cache.py)
wait=${NEWSESSION_WAIT:-all}
if [[ " $parts " == *" new "* ]]; then
	nin=$(newsessions "$OLLAMA_TINY_MODEL")
	nl3=$(newsessions tiny-llama3)
	nq2=$(newsessions tiny-qwen2)
	nstat() { # nstat DATA WHAT
		awk -v what="$2" '
			$1 == "mean" { share = $2; floor = $3; next }
			{ per = per sprintf("%s%.3f (%.3f)", per == "" ? "" : ", ", $2 / $3, $4 / $5) }
			END {
				if (what == "share") printf "%.3f×", share
				if (what == "floor") printf "%.3f×", floor
				if (what == "target") printf "%s (%.2f× the floor, %+.3f)", (share <= 1.25 * floor || share <= floor + 0.05) ? "met" : "NOT met", share / floor, share - floor
				if (what == "per") printf "%s", per
			}' <<<"$1"
	}
	nrow() { # nrow LABEL WHAT [TARGET]
		echo "| $1 | $(nstat "$nin" "$2") | $(nstat "$nl3" "$2") | $(nstat "$nq2" "$2") | ${3:-} |"
	}
	how="each in a minute of its own"
	[ "$wait" = all ] || how="waiting for a new minute before chats: $wait"
	echo "| a new session: one-shot \`agent chat\` calls in a row on the real Ollama (chats 2–$chats, $how; tiny model) | in-place template | llama3.x template | qwen2.x template | target |"
	echo "|---|---|---|---|---|"
	nrow "prompt tokens evaluated / the prompt's (a cold evaluation: prompt_eval_count), mean" share
	nrow "the floor the same way: the same requests with only the question (with its context) differing from the chat before" floor
	nrow "against the floor" target "≤ 1.25× the floor or within 0.05"
	nrow "per chat: evaluated / cold (the floor's)" per
	echo
fi
[[ " $parts " == *" turns "* ]] || exit 0

ex=$(conversation exchange "$OLLAMA_TINY_MODEL")
ly=$(conversation layer "$OLLAMA_TINY_MODEL")
l3=$(conversation exchange tiny-llama3)
q2=$(conversation exchange tiny-qwen2)
stat() { # stat DATA WHAT
	awk -v what="$2" '
		$1 == "floor" { floor = $2; next }
		$1 == "cold" { cold = $2; next }
		$1 == "tail" { tailf = $2; next }
		{ d[$1] = $2; cut[$1] = ($1 > 1 && $5 != prev); prev = $5; last = $1
		  if ($1 > 1) { r = ($4 > 0) ? $3 / $4 : 0; if (cut[$1]) cuts++; s += r; n++; if (min == "" || r < min) { min = r; minfloor = 1 - $6 / $4 } m2 += $2; n2++ } }
		END {
			steady = m2 / n2 / cold
			factor = tailf
			if (what == "t1") printf "%.1f ms", d[1] / 1e6
			if (what == "t2") printf "%.1f ms", d[2] / 1e6
			if (what == "tl") printf "%.1f ms%s", d[last] / 1e6, cut[last] ? " (a window cut)" : ""
			if (what == "cuts") printf "%d", cuts
			if (what == "steady") printf "%.3f×", steady
			if (what == "floor") printf "%.3f×", floor
			if (what == "target") printf "%s (%.2f× the floor, %+.3f)", (steady <= 1.25 * floor || steady <= floor + 0.05) ? "met" : "NOT met", steady / floor, steady - floor
			if (what == "factor") printf "%.2f×", factor
			if (what == "tfloor") printf "%.3f×", floor * factor
			if (what == "ttarget") printf "%s (%.2f× the floor in time, %+.3f)", (steady <= 1.25 * floor * factor || steady <= floor * factor + 0.05) ? "met" : "NOT met", steady / (floor * factor), steady - floor * factor
			if (what == "cold") printf "%.1f ms", cold / 1e6
			if (what == "ratio") printf "%.3f×", d[last] / cold
			if (what == "mean") { m = 0; for (i = 2; i <= last; i++) m += d[i]; printf "%.1f ms", m / (last - 1) / 1e6 }
			if (what == "reuse") printf "%.1f%% (min %.1f%%, where all but the new message and its context is %.1f%%)", 100 * s / n, 100 * min, 100 * minfloor
		}' <<<"$1"
}
row() { # row LABEL WHAT [TARGET]
	echo "| $1 | $(stat "$ex" "$2") | $(stat "$ly" "$2") | $(stat "$l3" "$2") | $(stat "$q2" "$2") | ${3:-} |"
}
echo "| turn cost on the real Ollama ($turns turns, tiny model) | in-place template, exchange (default) | in-place, layer (design order) | llama3.x template, exchange | qwen2.x template, exchange | target |"
echo "|---|---|---|---|---|---|"
row "prompt evaluation, turn 1 (model loading, nothing cached)" t1
row "prompt evaluation, turn 2" t2
row "prompt evaluation, mean of turns 2–$turns" mean
row "prompt evaluation, turn $turns" tl
row "prompt evaluation, a cold request of that length (model unloaded)" cold
row "turn $turns / cold" ratio
row "mean of turns 2–$turns / cold (window cuts included)" steady
row "the template's floor: the share of a later prompt it renders anew" floor
row "mean / cold against the floor" target "≤ 1.25× the floor or within 0.05"
row "a character evaluated at the end of the prompt, against one of a cold evaluation" factor
row "the floor in time: the template's floor × that" tfloor
row "mean / cold against the floor in time" ttarget "≤ 1.25× or within 0.05"
row "bytes shared with the previous request, turns 2–$turns" reuse
row "turns on which the history window was cut" cuts
