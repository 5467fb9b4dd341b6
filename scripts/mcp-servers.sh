#!/usr/bin/env bash
# The reference MCP servers, real and unmodified, from the npm registry, for
# the end-to-end test: @modelcontextprotocol/server-everything and
# @modelcontextprotocol/server-filesystem at $MCP_SERVERS_VERSION. Needs node
# and npm.
#
# Called:
#   scripts/mcp-servers.sh install     make sure both are installed; print their paths
# Sourced (what e2e.sh does):
#   . scripts/mcp-servers.sh
#   mcp_servers_install                sets MCP_EVERYTHING and MCP_FILESYSTEM
#
# They are installed once with `npm install --prefix` into
# ${AGENT_CACHE:-$HOME/.cache/agent}/npm and reused while that holds this
# version of both. MCP_EVERYTHING and MCP_FILESYSTEM are the servers' entry
# scripts, run with node (no npx: nothing is fetched at run time).

MCP_SERVERS_VERSION=2026.8.31

. "$(dirname "${BASH_SOURCE[0]}")/npm-pinned.sh"

_mcp_say() { echo "mcp-servers.sh: $*" >&2; }

mcp_servers_install() {
	local dir="${AGENT_CACHE:-$HOME/.cache/agent}/npm"
	local ev=@modelcontextprotocol/server-everything fs=@modelcontextprotocol/server-filesystem
	npm_pinned_install mcp-servers.sh "$dir" "$MCP_SERVERS_VERSION" "$ev" "$fs" || return 1
	MCP_EVERYTHING="$dir/node_modules/$ev/dist/index.js"
	MCP_FILESYSTEM="$dir/node_modules/$fs/dist/index.js"
	[ -f "$MCP_EVERYTHING" ] && [ -f "$MCP_FILESYSTEM" ] || {
		_mcp_say "entry scripts missing under $dir"
		return 1
	}
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	case "${1:-}" in
	install)
		mcp_servers_install || exit 1
		echo "$MCP_EVERYTHING"
		echo "$MCP_FILESYSTEM"
		;;
	*)
		echo "usage: scripts/mcp-servers.sh install" >&2
		exit 2
		;;
	esac
fi
