#!/bin/bash
# PHYBIN_PERF_MAP=1: /tmp/perf-PID.map names every translated block, one
# well-formed line each ("HOST_START SIZE x86:SYMBOL+OFFSET [FILE]", hex),
# as many as the blocks phybin says it translated, without overlaps, and
# main by its name; without the setting there is no file.
#
# usage: run_perf_map_test.sh PHYBIN_RUNNER HELLO_STATIC
set -u
runner=$1 hello=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/phybin-perfmap.XXXXXX") || exit 1
trap 'rm -f /tmp/perf-"$(cat "$work/pid" 2>/dev/null)".map; rm -rf "$work"' EXIT
cp "$hello" "$work/hello_static"
fail=0
# scripts/phybin ends by exec: the shell's PID is phybin's.
run() { (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" PHYBIN_CACHE_DIR=off "$@" \
  bash -c 'echo $$ >pid; exec "$0" ./hello_static' "$runner" >out 2>err); }
run PHYBIN_PERF_MAP=0
[[ -e /tmp/perf-$(cat "$work/pid").map ]] && { echo "FAIL: a map without PHYBIN_PERF_MAP=1"; fail=1; }
run PHYBIN_PERF_MAP=1 PHYBIN_LOG_LEVEL=2
map=/tmp/perf-$(cat "$work/pid").map
if [[ ! -s $map ]]; then
  echo "FAIL: no $map"
  exit 1
fi
blocks=$(sed -nE 's/^phybin: ([0-9]+) blocks translated.*/\1/p' "$work/err")
lines=$(wc -l <"$map")
[[ $lines == "$blocks" ]] || { echo "FAIL: $lines lines for $blocks blocks"; fail=1; }
bad=$(grep -cvE '^[0-9a-f]+ [0-9a-f]+ x86:[^ ]+ \[hello_static\]$' "$map")
[[ $bad == 0 ]] || { echo "FAIL: $bad malformed lines, e.g.: $(grep -vE '^[0-9a-f]+ [0-9a-f]+ x86:[^ ]+ \[hello_static\]$' "$map" | head -2)"; fail=1; }
grep -q " x86:main \[hello_static\]$" "$map" || { echo "FAIL: main is not named"; fail=1; }
overlaps=$(awk '{ printf "%d %d\n", strtonum("0x" $1), strtonum("0x" $2) }' "$map" | sort -n |
  awk 'NR > 1 && $1 < end { n++ } { end = $1 + $2 } END { print n + 0 }')
[[ $overlaps == 0 ]] || { echo "FAIL: $overlaps blocks overlap the one before"; fail=1; }
((fail)) && { head -5 "$map"; exit 1; }
echo "PASS: $lines blocks named in $map, main among them"
