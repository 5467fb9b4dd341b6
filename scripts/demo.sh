#!/usr/bin/env bash
# make demo: a throwaway workspace from the example files in scripts/demo,
# the memory commands on it, then a real chat. The chat uses your Ollama if
# it is running and has the model (AGENT_MODEL, default llama3.2); otherwise
# a locally built Ollama v0.9.6 with a tiny random-weight model (see
# scripts/ollama.sh), which answers noise but runs the whole real path.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
agent="$root/bin/agent"
ws="$(mktemp -d "${TMPDIR:-/tmp}/agent-demo.XXXXXX")"
export AGENT_HOME="$ws"

say() { printf '\n\033[1m$ agent %s\033[0m\n' "$*" >&2; }
run() { say "$@"; "$agent" "$@"; }

cp -R "$root/scripts/demo/." "$ws/"
run init --agent-name Atlas --user-name Igor
run profile set user.timezone Europe/Lisbon
run profile show
run log "Bought the adapter plug for the Lisbon trip"
run memory add --section Preferences "Window seat on flights"
run memory reindex
run memory search "lisbon flight"
run memory search --json "dentist" -k 1
# While `agent memory watch` runs, searches and chats ask it whether the
# index is fresh instead of checking every file themselves.
say "memory watch &"
"$agent" memory watch &
watcher=$!
trap 'kill $watcher 2>/dev/null' EXIT
for _ in $(seq 100); do [ -S "$ws/.watch.sock" ] && break; sleep 0.05; done
run log "The dentist moved my check-up to Thursday"
run memory search "dentist thursday" -k 1
kill -INT $watcher && wait $watcher
trap - EXIT
run prompt "when do I fly to Lisbon?" | sed -n "/^## Now/,/^── soul/p;/^── memory/,/^── total/p"

chat() {
	run chat "When do I fly to Lisbon, and what should I pack?"
	run chat --continue "And when am I back?"
	run sessions list
}

model="${AGENT_MODEL:-llama3.2}"
if "$agent" --model "$model" doctor >/dev/null 2>&1 ||
	"$agent" --model "$model" doctor 2>/dev/null | grep -q '^ok	model'; then
	echo "agent demo: chatting with your Ollama at ${OLLAMA_HOST:-127.0.0.1:11434}, model $model" >&2
	chat
else
	echo "agent demo: no Ollama with model $model here: starting a locally built Ollama v0.9.6 with a tiny random-weight model (its replies are noise; the path is real)" >&2
	. "$root/scripts/ollama.sh"
	trap 'ollama_down; rm -rf "$ws"' EXIT
	ollama_up
	export AGENT_MODEL="$OLLAMA_TINY_MODEL"
	chat
	echo "agent demo: workspace was $ws (removed)" >&2
	exit 0
fi
echo "agent demo: workspace left at $ws for you to explore (AGENT_HOME=$ws)" >&2
