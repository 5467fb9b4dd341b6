#!/usr/bin/env bash
# LLaMA's SentencePiece vocabulary (32,000 pieces) from the npm registry,
# for a tiny model that counts tokens as a real model does: the end-to-end
# test measures the identity section with prompt_eval_count on the real
# Ollama, which is only a token count worth reading with a real tokenizer.
# The pieces come from llama-tokenizer-js $LLAMA_TOKENIZER_VERSION (MIT),
# which carries LLaMA's vocabulary and merges. Needs node and npm.
#
# Called:
#   scripts/llama-vocab.sh install     make sure it is installed; print the vocabulary file
#   scripts/llama-vocab.sh count       print how many tokens stdin is (no BOS), by the JS tokenizer
# Sourced (what e2e.sh does):
#   . scripts/llama-vocab.sh
#   llama_vocab_install                sets LLAMA_VOCAB (a JSON array of pieces, in id order)
#                                      and LLAMA_TOKENIZER_JS (the module)
#   llama_vocab_count <FILE            the JS tokenizer's count, to compare with Ollama's
#                                      (after llama_vocab_install, whatever HOME is then)
#
# Installed once with `npm install --prefix` into
# ${AGENT_CACHE:-$HOME/.cache/agent}/npm-llama-tokenizer, the vocabulary
# written beside it, both reused while the version holds.

LLAMA_TOKENIZER_VERSION=1.2.2

. "$(dirname "${BASH_SOURCE[0]}")/npm-pinned.sh"

_vocab_say() { echo "llama-vocab.sh: $*" >&2; }

_vocab_dir() { echo "${AGENT_CACHE:-$HOME/.cache/agent}/npm-llama-tokenizer"; }

_vocab_module() { echo "$(_vocab_dir)/node_modules/llama-tokenizer-js/llama-tokenizer.js"; }

llama_vocab_install() {
	local dir
	dir="$(_vocab_dir)"
	LLAMA_VOCAB="$dir/vocab-$LLAMA_TOKENIZER_VERSION.json"
	LLAMA_TOKENIZER_JS="$(_vocab_module)"
	[ -s "$LLAMA_VOCAB" ] && [ -f "$LLAMA_TOKENIZER_JS" ] && return 0
	npm_pinned_install llama-vocab.sh "$dir" "$LLAMA_TOKENIZER_VERSION" llama-tokenizer-js || return 1
	# Written to a temporary name first: a half-written file is never reused.
	node --input-type=module -e '
		const { default: t } = await import(process.argv[1]);
		process.stdout.write(JSON.stringify(t.vocabById));
	' "$LLAMA_TOKENIZER_JS" >"$LLAMA_VOCAB.tmp" && mv -f "$LLAMA_VOCAB.tmp" "$LLAMA_VOCAB" || {
		rm -f "$LLAMA_VOCAB.tmp"
		_vocab_say "could not read the vocabulary from $LLAMA_TOKENIZER_JS"
		return 1
	}
}

llama_vocab_count() {
	node --input-type=module -e '
		const { default: t } = await import(process.argv[1]);
		let s = "";
		for await (const d of process.stdin) s += d;
		console.log(t.encode(s, false).length);
	' "$LLAMA_TOKENIZER_JS"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	case "${1:-}" in
	install)
		llama_vocab_install || exit 1
		echo "$LLAMA_VOCAB"
		;;
	count)
		llama_vocab_install || exit 1
		llama_vocab_count
		;;
	*)
		echo "usage: scripts/llama-vocab.sh install|count" >&2
		exit 2
		;;
	esac
fi
