#!/bin/bash
# PHYBIN_PROFILE: the report at exit.  matmul spends its time in main (its
# triple loop): main must lead the hottest functions with most of the
# guest instructions run, the system calls it makes (write among them)
# must be counted, and translation time reported; PHYBIN_PROFILE=FILE puts
# the same report in that file, and the program's own output is unchanged.
#
# usage: run_profile_test.sh PHYBIN_RUNNER MATMUL
set -u
runner=$1 program=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/phybin-profile.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
problem() { echo "FAIL: $*"; fail=1; }
run() { (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" "$@" "$runner" "$program"); }
run PHYBIN_PROFILE=0 >"$work/plain.out" 2>"$work/plain.err" || problem "the plain run failed"
run PHYBIN_PROFILE=1 >"$work/out" 2>"$work/err" || problem "the profiled run failed"
cmp -s "$work/plain.out" "$work/out" || problem "profiling changed the program's output"
[[ -s $work/plain.err ]] && problem "a report without PHYBIN_PROFILE: $(head -2 "$work/plain.err")"
report=$work/err
grep -qE "^phybin profile of .*matmul \(pid [0-9]+\): [0-9.]+ s$" "$report" || problem "no report header"
grep -qE "^  translation: [0-9.]+ s \([0-9.]+ %\), [1-9][0-9]* blocks of [1-9][0-9]* guest instructions$" "$report" ||
  problem "no translation line"
runs=$(sed -nE 's/^  translated code: about ([0-9]+) guest instructions run$/\1/p' "$report")
[[ -n $runs && $runs -gt 1000000 ]] || problem "guest instructions run: '$runs' (a 64x64 matrix product runs millions)"
grep -qE "^ +[0-9]+  write$" "$report" || problem "write is not among the system calls"
first=$(grep -A1 "^  hottest guest functions" "$report" | tail -1)
[[ $first =~ ^\ +([0-9.]+)\ %\ \ main\ \[matmul\]$ ]] && (( ${BASH_REMATCH[1]%.*} >= 50 )) ||
  problem "main should lead the hottest functions with most of the instructions: '$first'"
run PHYBIN_PROFILE="$work/report.txt" >/dev/null 2>"$work/file.err" || problem "the run with a report file failed"
grep -q "^  hottest guest functions" "$work/report.txt" 2>/dev/null || problem "no report in $work/report.txt"
[[ -s $work/file.err ]] && problem "with a report file, stderr has: $(head -2 "$work/file.err")"
if ((fail)); then
  cat "$report"
  exit 1
fi
echo "PASS: $(grep -A1 '^  hottest' "$report" | tail -1 | sed 's/^ *//'), $runs guest instructions run"
