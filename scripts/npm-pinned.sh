#!/usr/bin/env bash
# npm packages pinned to one version, installed once into a cache directory
# with `npm install --prefix` and reused while that version holds: what
# mcp-servers.sh and llama-vocab.sh install for the end-to-end test. Sourced:
#
#   . scripts/npm-pinned.sh
#   npm_pinned_install WHO DIR VERSION PACKAGE...   every PACKAGE at VERSION under DIR;
#                                                   WHO names the caller in messages

# npm_pinned_has DIR VERSION PACKAGE...: is every PACKAGE at VERSION under DIR?
npm_pinned_has() {
	local dir=$1 version=$2 p
	shift 2
	for p; do
		node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
			"$dir/node_modules/$p/package.json" "$version" 2>/dev/null || return 1
	done
}

npm_pinned_install() {
	local who=$1 dir=$2 version=$3 p
	shift 3
	command -v node >/dev/null && command -v npm >/dev/null || {
		echo "$who: node and npm are needed" >&2
		return 1
	}
	npm_pinned_has "$dir" "$version" "$@" && return 0
	mkdir -p "$dir" || return 1
	echo "$who: installing $* $version into $dir (once)" >&2
	local specs=()
	for p; do specs+=("$p@$version"); done
	npm install --prefix "$dir" --no-audit --no-fund --update-notifier=false --loglevel=error "${specs[@]}" >&2 || {
		echo "$who: npm install failed" >&2
		return 1
	}
	npm_pinned_has "$dir" "$version" "$@" || {
		echo "$who: npm installed another version than $version" >&2
		return 1
	}
}
