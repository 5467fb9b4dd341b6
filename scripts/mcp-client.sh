#!/usr/bin/env bash
# The official MCP TypeScript SDK (@modelcontextprotocol/sdk from npm), the
# client Claude Code and Codex are built like, for the end-to-end test of
# `agent mcp serve`: scripts/mcp-client.mjs drives the server with it over
# stdio and HTTP. Needs node and npm.
#
# Called:
#   scripts/mcp-client.sh install      make sure it is installed; print its folder
# Sourced (what e2e.sh does):
#   . scripts/mcp-client.sh
#   mcp_client_install                 sets MCP_TS_SDK_DIR (run the client with
#                                      MCP_TS_SDK_DIR=... node scripts/mcp-client.mjs)
#
# Installed once with `npm install --prefix` into
# ${AGENT_CACHE:-$HOME/.cache/agent}/npm-mcp-sdk, a folder of its own (the
# reference servers' folder pins another version of everything in it).

MCP_TS_SDK_VERSION=1.32.2

. "$(dirname "${BASH_SOURCE[0]}")/npm-pinned.sh"

mcp_client_install() {
	export MCP_TS_SDK_DIR="${AGENT_CACHE:-$HOME/.cache/agent}/npm-mcp-sdk"
	npm_pinned_install mcp-client.sh "$MCP_TS_SDK_DIR" "$MCP_TS_SDK_VERSION" @modelcontextprotocol/sdk
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	case "${1:-}" in
	install)
		mcp_client_install || exit 1
		echo "$MCP_TS_SDK_DIR"
		;;
	*)
		echo "usage: scripts/mcp-client.sh install" >&2
		exit 2
		;;
	esac
fi
