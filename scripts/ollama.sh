#!/usr/bin/env bash
# A real Ollama v0.9.6 serving the tiny random-weight model, for the
# end-to-end test and demos. Needs only Go, gcc/g++ and the Go module proxy.
#
# Called:
#   scripts/ollama.sh build          make sure the ollama binary is built
#   scripts/ollama.sh run CMD ARG..  start the server, run CMD with OLLAMA_HOST
#                                    and AGENT_MODEL set, stop the server
# Sourced (what e2e.sh does):
#   . scripts/ollama.sh
#   trap ollama_down EXIT            # the caller owns the EXIT trap
#   ollama_up                        # exports OLLAMA_HOST and OLLAMA_TINY_MODEL
#
# The binary is cached in ${AGENT_CACHE:-$HOME/.cache/agent}/bin/ollama and
# reused when it reports version 0.9.6; building it takes ~4 minutes on 2
# cores the first time. Each server gets a fresh temporary OLLAMA_MODELS and
# HOME (ollama writes a key pair into ~/.ollama), a free loopback port chosen
# by the kernel, and is stopped by its PID.

OLLAMA_VERSION=0.9.6
OLLAMA_TINY_MODEL=tiny
_ollama_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

_ollama_say() { echo "ollama.sh: $*" >&2; }

# ollama_build makes sure OLLAMA_BIN is a v0.9.6 build. The version is
# stamped with -ldflags as Ollama's own release build does; without it the
# binary calls itself 0.0.0.
ollama_build() {
	local dir="${AGENT_CACHE:-$HOME/.cache/agent}/bin"
	OLLAMA_BIN="$dir/ollama"
	if [ -x "$OLLAMA_BIN" ] &&
		OLLAMA_HOST=127.0.0.1:1 "$OLLAMA_BIN" --version 2>&1 | grep -q "version is $OLLAMA_VERSION\$"; then
		return 0
	fi
	mkdir -p "$dir" || return 1
	_ollama_say "building ollama v$OLLAMA_VERSION into $dir (a few minutes, once)"
	local tmp
	tmp="$(mktemp -d "$dir/.build.XXXXXX")" || return 1
	# Built outside this module (pkg@version), so nothing here leaks in.
	if ! (cd "$tmp" && GOFLAGS= GOBIN="$tmp" CGO_ENABLED=1 go install \
		-ldflags "-X=github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" \
		"github.com/ollama/ollama@v$OLLAMA_VERSION"); then
		rm -rf "$tmp"
		_ollama_say "building ollama failed"
		return 1
	fi
	mv -f "$tmp/ollama" "$OLLAMA_BIN" && rm -rf "$tmp"
}

# ollama_up builds the binary if needed, writes the tiny model, starts
# `ollama serve` and creates the model in it. On success OLLAMA_HOST points
# at the server and OLLAMA_PID is its process; on failure the server log is
# shown and everything started so far is stopped.
ollama_up() {
	ollama_build || return 1
	OLLAMA_TMP="$(mktemp -d "${TMPDIR:-/tmp}/agent-ollama.XXXXXX")" || return 1
	mkdir -p "$OLLAMA_TMP/home" "$OLLAMA_TMP/models" "$OLLAMA_TMP/tiny"

	(cd "$_ollama_root" && go run ./scripts/tinymodel -o "$OLLAMA_TMP/tiny") || {
		_ollama_say "writing the tiny model failed"
		ollama_down
		return 1
	}

	# Port 0: the kernel picks a free port, the log says which.
	HOME="$OLLAMA_TMP/home" OLLAMA_HOST=127.0.0.1:0 OLLAMA_MODELS="$OLLAMA_TMP/models" \
		"$OLLAMA_BIN" serve >"$OLLAMA_TMP/serve.log" 2>&1 &
	OLLAMA_PID=$!

	local addr="" i
	for i in $(seq 300); do
		addr="$(sed -n 's/.*Listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$OLLAMA_TMP/serve.log" | head -n 1)"
		[ -n "$addr" ] && break
		kill -0 "$OLLAMA_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$addr" ]; then
		_ollama_say "ollama serve did not start; its log:"
		sed 's/^/  /' "$OLLAMA_TMP/serve.log" >&2
		ollama_down
		return 1
	fi
	export OLLAMA_HOST="$addr" OLLAMA_TINY_MODEL

	# `ollama --version` asks GET /api/version: the server is up when it answers.
	for i in $(seq 100); do
		"$OLLAMA_BIN" --version 2>/dev/null | grep -q "^ollama version is" && break
		sleep 0.1
	done
	if ! (cd "$OLLAMA_TMP/tiny" && HOME="$OLLAMA_TMP/home" "$OLLAMA_BIN" create "$OLLAMA_TINY_MODEL" -f Modelfile) >"$OLLAMA_TMP/create.log" 2>&1; then
		_ollama_say "ollama create failed; its output, then the server log:"
		sed 's/^/  /' "$OLLAMA_TMP/create.log" "$OLLAMA_TMP/serve.log" >&2
		ollama_down
		return 1
	fi
	_ollama_say "ollama $OLLAMA_VERSION serving model $OLLAMA_TINY_MODEL at $OLLAMA_HOST (pid $OLLAMA_PID)"
}

# ollama_model NAME TEMPLATE [CTX]: the tiny model again, called NAME, with
# the chat template in the file TEMPLATE (core/ollamatest/templates) and
# context length CTX (default 8192), created in the running server. Its
# tokenizer reads about a character a token, so real templates' role
# markers and tool list want more room than a real tokenizer's.
ollama_model() {
	local dir="$OLLAMA_TMP/model-$1"
	(cd "$_ollama_root" && go run ./scripts/tinymodel -o "$dir" -template "$2" -ctx "${3:-8192}") &&
		(cd "$dir" && HOME="$OLLAMA_TMP/home" "$OLLAMA_BIN" create "$1" -f Modelfile) >"$OLLAMA_TMP/create-$1.log" 2>&1 || {
		_ollama_say "creating $1 with $2 failed:"
		sed 's/^/  /' "$OLLAMA_TMP/create-$1.log" >&2
		return 1
	}
}

# ollama_down stops the server by its PID (its model runners with it: it
# unloads them on SIGTERM; any still there after are stopped by their own
# PIDs) and removes its temporary directory. Safe to call more than once.
ollama_down() {
	if [ -n "${OLLAMA_PID:-}" ]; then
		local children="" i
		children="$(_ollama_children "$OLLAMA_PID")"
		kill -TERM "$OLLAMA_PID" 2>/dev/null
		for i in $(seq 50); do
			kill -0 "$OLLAMA_PID" 2>/dev/null || break
			sleep 0.1
		done
		# Callers may run under set -e: a process already gone is success.
		kill -KILL "$OLLAMA_PID" 2>/dev/null || true
		wait "$OLLAMA_PID" 2>/dev/null || true
		for i in $children; do
			kill -KILL "$i" 2>/dev/null || true
		done
		OLLAMA_PID=""
	fi
	if [ -n "${OLLAMA_TMP:-}" ]; then
		rm -rf "$OLLAMA_TMP"
		OLLAMA_TMP=""
	fi
}

# _ollama_children lists the PIDs whose parent is $1, read from /proc
# (nothing is listed where there is no /proc).
_ollama_children() {
	local parent="$1" stat line pid state ppid
	for stat in /proc/[0-9]*/stat; do
		line="$(cat "$stat" 2>/dev/null)" || continue
		pid="${line%% *}"
		# The name (field 2) may hold spaces: read from after its ")".
		read -r state ppid _ <<<"${line##*) }"
		[ "$ppid" = "$parent" ] && echo "$pid"
	done
	return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	case "${1:-}" in
	build)
		ollama_build
		;;
	run)
		shift
		[ $# -gt 0 ] || { _ollama_say "usage: scripts/ollama.sh run CMD [ARG...]"; exit 2; }
		trap ollama_down EXIT
		trap 'exit 130' INT TERM
		ollama_up || exit 1
		AGENT_MODEL="$OLLAMA_TINY_MODEL" "$@"
		;;
	*)
		_ollama_say "usage: scripts/ollama.sh build | run CMD [ARG...]"
		exit 2
		;;
	esac
fi
