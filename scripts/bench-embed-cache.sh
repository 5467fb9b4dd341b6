#!/usr/bin/env bash
# The cache rule with embeddings on (issue 27, docs/decisions-index.md,
# "Embeddings"): a 10-turn chat on the real Ollama v0.9.6 (the tiny model)
# with `--embed-model glove` (GloVe packed by scripts/glove.sh) against the
# same chat without it. Each turn's recall embeds the message through
# /api/embed while the chat model is loaded; if that evicted the chat model
# or its cache, the later turns' prompt_eval_count would climb back to the
# whole prompt. Prints both series and `ollama ps` after the embedding run.
# Needs bin/agent (make build).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
agent="$root/bin/agent"
[ -x "$agent" ] || { echo "bench-embed-cache.sh: run make build first" >&2; exit 1; }
. "$root/scripts/ollama.sh"
. "$root/scripts/glove.sh"
glove_dir="$(glove_cache)"
glove_model "$glove_dir" || exit 1
work="$(mktemp -d "${TMPDIR:-/tmp}/agent-embed-cache.XXXXXX")"
trap 'ollama_down; rm -rf "$work"' EXIT
ollama_up || exit 1
glove_create "$glove_dir" >/dev/null || {
	echo "bench-embed-cache.sh: ollama create glove failed" >&2
	exit 1
}
field() { grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }
session() { # session NAME [agent flags...]: 10 turns, prints "count/duration_ms" per turn
	local name=$1 i out
	shift
	export AGENT_HOME="$work/$name" AGENT_MODEL="$OLLAMA_TINY_MODEL" HOME="$work/home"
	mkdir -p "$HOME"
	"$agent" -q init >/dev/null 2>&1
	mkdir -p "$AGENT_HOME/logs"
	printf '# 2026-11-20\n\n## School\n\nPicked up the children from school at four.\n\n## Money\n\nThe stock market fell sharply today.\n' >"$AGENT_HOME/logs/2026-11-20.md"
	"$agent" -q "$@" memory reindex
	for i in $(seq 10); do
		if [ "$i" = 1 ]; then
			out="$("$agent" "$@" chat --session s --json "turn $i: what did the kids do at school?" 2>/dev/null)"
		else
			out="$("$agent" "$@" chat --continue --json "turn $i: and what comes next for the children?" 2>/dev/null)"
		fi
		printf ' %s/%s' "$(field prompt_eval_count <<<"$out")" "$(( $(field prompt_eval_duration <<<"$out") / 1000000 ))"
	done
	echo
}
echo "prompt_eval_count/ms per turn, embeddings off:$(session off)"
echo "prompt_eval_count/ms per turn, embeddings on: $(session on --embed-model glove)"
echo "ollama ps after the run with embeddings:"
"$OLLAMA_BIN" ps | sed 's/^/  /'
