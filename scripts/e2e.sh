#!/usr/bin/env bash
# End-to-end test: the real bin/agent against a real Ollama v0.9.6 serving the
# tiny random-weight model (see scripts/ollama.sh). Run by `make e2e`, after
# `make build`. Prints one line per check and a final
# "e2e: N passed, M failed"; exits non-zero on any failure. The server is
# stopped and every temporary directory removed, also on failure or Ctrl-C.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
agent="$root/bin/agent"
if [ ! -x "$agent" ]; then
	echo "e2e: $agent not found (run: make build)" >&2
	exit 1
fi

. "$root/scripts/ollama.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/agent-e2e.XXXXXX")"
cleanup() {
	ollama_down
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0

# ag runs bin/agent: stdout in OUT, stderr in ERR, exit status in CODE.
ag() {
	OUT="$("$agent" "$@" 2>"$work/stderr")"
	CODE=$?
	ERR="$(cat "$work/stderr")"
}

# check DESCRIPTION CONDITION...: one named assertion; on failure the last
# command's exit status, stdout and stderr are shown.
check() {
	local what="$1"
	shift
	if "$@"; then
		passed=$((passed + 1))
		echo "e2e: ok    $what"
	else
		failed=$((failed + 1))
		echo "e2e: FAIL  $what"
		echo "    exit status: ${CODE:-?}"
		sed 's/^/    stdout: /' <<<"${OUT:-}"
		sed 's/^/    stderr: /' <<<"${ERR:-}"
	fi
}

code_is() { [ "$CODE" = "$1" ]; }
out_has() { grep -Eq -- "$1" <<<"$OUT"; }
err_has() { grep -Eq -- "$1" <<<"$ERR"; }
err_empty() { [ -z "$ERR" ]; }

e2e_setup() {
	ag init
	check "agent init creates the workspace" code_is 0
	ag memory reindex
	check "agent memory reindex builds the index" code_is 0
}

# e2e_time: a reminder delivered by the tick, and a chat job that the tick
# runs against the real server, whose reply lands in today's log and index.
# It runs in a workspace of its own so that its entries and sessions change
# nothing the other checks see.
e2e_time() {
	local -x AGENT_HOME="$work/ws-time"
	ag init
	check "time: a workspace of its own" code_is 0
	ag remind "stretch your legs" --at +1s
	check "remind --at +1s: exit 0, the reminder on stdout" eval 'code_is 0 && out_has "^[0-9]+	[^	]+	pending	stretch your legs\$"'
	local id="${OUT%%	*}"
	sleep 2
	ag jobs tick
	check "jobs tick prints the due reminder" eval 'code_is 0 && out_has "^reminder $id \(due [^)]+\): stretch your legs\$"'
	ag jobs tick
	check "a second tick does not print it again" eval 'code_is 0 && [ -z "$OUT" ]'
	ag reminders done "$id"
	check "reminders done" code_is 0

	ag jobs add brief --schedule "* * * * *" -- chat "Write my morning brief from today's log"
	check "jobs add of a chat job" code_is 0
	ag jobs show brief --json
	local next wait
	next="$(grep -o '"next_at":"[^"]*"' <<<"$OUT" | cut -d'"' -f4)"
	wait=$(($(date -d "$next" +%s) - $(date +%s) + 1))
	check "the job is due within a minute (waiting ${wait}s)" eval '[ "$wait" -ge 1 ] && [ "$wait" -le 61 ]'
	sleep "$wait"
	ag jobs tick
	check "jobs tick runs the chat job against the real Ollama" eval 'code_is 0 && err_has "^agent: job brief: ok\$"'
	local today
	today="$(date +%Y-%m-%d)"
	check "its reply is in today's log under the job's heading" \
		eval 'grep -Eq "^### [0-9]{2}:[0-9]{2} job brief\$" "$AGENT_HOME/logs/$today.md"'
	ag memory search brief
	check "memory search finds the job's entry" eval 'code_is 0 && out_has "^logs/$today.md	[0-9]+	[0-9]+	[0-9:]+ job brief	"'
	ag jobs history brief
	check "the run is in the job's history" eval 'code_is 0 && out_has "^[0-9]+	brief	[^	]+	tick	ok	0	"'
}

e2e_doctor() {
	ag doctor
	check "doctor: every check ok, exit 0, stderr empty" eval 'code_is 0 && err_empty && [ "$(grep -c "^ok	" <<<"$OUT")" = 7 ]'
	check "doctor: the real server's version and address" out_has "^ok	ollama	version $OLLAMA_VERSION at http://$OLLAMA_HOST	\$"
	check "doctor: the model and its context length from /api/show" out_has "^ok	model	tiny:latest, context length 8192, llama 86K unknown	\$"

	ag doctor --json
	check "doctor --json: ok true, exit 0" eval 'code_is 0 && err_empty && out_has "^\{\"ok\":true,\"checks\":\["'
	check "doctor --json: model check with context length" out_has '\{"name":"model","ok":true,"detail":"tiny:latest, context length 8192[^"]*","fix":""\}'

	ag --model nosuch doctor
	check "doctor with a model not installed: exit 4" code_is 4
	check "doctor with a model not installed: says what to pull" out_has "^fail	model	nosuch:latest not installed	ollama pull nosuch\$"

	OLLAMA_HOST=127.0.0.1:1 ag doctor
	check "doctor with Ollama unreachable: exit 4" code_is 4
	check "doctor with Ollama unreachable: says how to start it" out_has "^fail	ollama	cannot reach Ollama at http://127.0.0.1:1: is 'ollama serve' running\\?	"
}

# e2e_chat: `agent chat` through the real server. The tiny model's replies
# are 8 printable characters of noise (num_predict 8 in its Modelfile); its
# tokenizer counts about one token per character, so prompt_eval_count is
# about the prompt's length in characters — more than our estimate.
json_int() { grep -o "\"$1\":[0-9]*" <<<"$OUT" | head -n 1 | cut -d: -f2; }
layer_tokens() { grep -o "{\"name\":\"$1\",[^}]*}" <<<"$OUT" | grep -o '"tokens":[0-9]*' | cut -d: -f2; }

e2e_chat() {
	ag profile set agent.name Atlas
	ag profile set user.name Igor
	ag log "Booked flights to Lisbon for the fourth of December"

	ag chat "hello, when do I fly to Lisbon?"
	check "chat one-shot: exit 0, a reply on stdout, stderr empty" eval 'code_is 0 && err_empty && [ -n "$OUT" ]'

	ag chat --continue --json "and when do I fly back from Lisbon?"
	check "chat --continue --json: exit 0, stderr empty" eval 'code_is 0 && err_empty'
	check "chat --json: the reply and the model's counts" out_has '"reply":"[^"]+".*"prompt_eval_count":[1-9][0-9]*,"eval_count":[1-9]'
	local pec fixed
	pec="$(json_int prompt_eval_count)"
	fixed=$(( $(layer_tokens system) + $(layer_tokens soul) + $(layer_tokens profile) ))
	check "the whole layered prompt reached the model: prompt_eval_count $pec >= layers 1-3 estimate $fixed" \
		eval '[ "${pec:-0}" -ge "$fixed" ] && [ "$fixed" -gt 0 ]'
	check "chat --continue carried the first exchange as history" out_has '"name":"history","source":"session [^"]+","tokens":[0-9]+,"chars":[0-9]+,"items":2'
	check "chat recalled the log entry" out_has '"name":"memory","source":"index: [1-9]'

	ag sessions show --json
	check "both turns stored in the session" eval '[ "$(grep -o "\"role\":\"assistant\"" <<<"$OUT" | wc -l)" = 2 ] && out_has "fly back from Lisbon"'

	ag --model nosuch chat "hi"
	check "chat with a model not installed: exit 4, says what to pull" eval 'code_is 4 && err_has "model nosuch:latest not found: run .ollama pull nosuch:latest."'
}

start=$SECONDS
ollama_up || {
	echo "e2e: could not start Ollama"
	echo "e2e: 0 passed, 1 failed"
	exit 1
}
# The agent gets a private home and workspace; ollama.sh used the real HOME
# only to find its cached binary.
export HOME="$work/home" AGENT_HOME="$work/ws" AGENT_MODEL="$OLLAMA_TINY_MODEL" NO_COLOR=1
mkdir -p "$HOME"

e2e_setup
e2e_time
e2e_doctor
e2e_chat

echo "e2e: took $((SECONDS - start))s"
echo "e2e: $passed passed, $failed failed"
[ "$failed" = 0 ]
