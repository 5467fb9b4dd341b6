#!/bin/sh
# fuzz.sh [SECONDS] — run every Go fuzz target in the tree for SECONDS each
# (default 5), one `go test -fuzz` per target (go test fuzzes one target per
# invocation), and print how many inputs each tried.
#
#   scripts/fuzz.sh 5     what `make fuzz-short` runs (part of `make test`)
#   scripts/fuzz.sh 120   what `make fuzz` runs
#
# Targets are found by name (func FuzzXxx(f *testing.F) in a _test.go file),
# so a new one is picked up without editing this script. A failing input is
# written by go test to PKG/testdata/fuzz/TARGET/ and fails plain `go test`
# from then on: commit it with the fix. FUZZ_PARALLEL caps the fuzzing
# workers (default: go test's, one per CPU).
set -eu

secs=${1:-5}
case $secs in
'' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$secs'" >&2; exit 2 ;;
esac
GO=${GO:-go}
cd "$(dirname "$0")/.."

parallel=""
if [ -n "${FUZZ_PARALLEL:-}" ]; then
	parallel="-parallel=$FUZZ_PARALLEL"
fi

list=$(grep -rE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
	sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*).*|\1 \2|' | sort -u)
if [ -z "$list" ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi

failed=0
total=0
summary=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The here-document keeps the loop in this shell, so the counters survive it.
while read -r pkg target; do
	echo "fuzz.sh: $target in ./$pkg for ${secs}s" >&2
	# shellcheck disable=SC2086 # $parallel is empty or one flag
	if $GO test -tags sqlite_fts5 -run '^$' -fuzz "^$target\$" -fuzztime "${secs}s" $parallel "./$pkg" >"$log" 2>&1; then
		status=ok
	else
		status=FAIL
		failed=1
		cat "$log" >&2
	fi
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+' || echo 0)
	total=$((total + execs))
	summary="$summary$(printf '%-5s %-28s %-10s %10s inputs' "$status" "$target" "./$pkg" "$execs")
"
done <<EOF
$list
EOF

printf '%s' "$summary"
echo "fuzz.sh: $total inputs tried in total, ${secs}s per target"
exit $failed
