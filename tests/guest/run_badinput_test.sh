#!/bin/bash
# Runs phybin on a file it must refuse and checks how it refuses: phybin's
# own exit status 0x70 + (code & 0xF) (never death by a signal), the error
# code in hex on stderr ("phybin: error 0x1007 (...)"), and optionally
# more texts on stderr (matched without regard to case).  --code none: a
# setting phybin cannot honour but runs with, warning: the run succeeds
# and stderr has the texts.  --same-as-native (with --code none): an
# unusual file Linux runs; phybin's standard output and exit status must be
# those of the native run.
#
# usage: run_badinput_test.sh --runner PATH --code 0xNNNN|none [--env VAR=VAL]...
#                             [--stderr-contains TEXT]... [--same-as-native] -- FILE [ARGS]...
#
# PHYBIN_GUEST_RUNNER overrides --runner, as for run_guest_test.sh;
# PHYBIN_GUEST_TIMEOUT bounds the run (seconds, default 300).
set -u
# shellcheck source=guest_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/guest_env.sh"

runner=""
code=""
texts=()
settings=()
same_as_native=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runner) runner="$2"; shift 2 ;;
    --code) code="$2"; shift 2 ;;
    --stderr-contains) texts+=("$2"); shift 2 ;;
    --env) settings+=("$2"); shift 2 ;;
    --same-as-native) same_as_native=1; shift ;;
    --) shift; break ;;
    *) echo "run_badinput_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ $# -lt 1 ] || [ -z "$code" ]; then
  echo "usage: run_badinput_test.sh --runner PATH --code 0xNNNN [--env VAR=VAL]... [--stderr-contains TEXT]... -- FILE [ARGS]..." >&2
  exit 2
fi
runner="${PHYBIN_GUEST_RUNNER:-$runner}"
# phybin runs from a temporary directory: make relative paths absolute.
case "$runner" in /*) ;; */*) runner="$PWD/$runner" ;; esac
file="$1"
shift
case "$file" in /*|-*) ;; *) file="$PWD/$file" ;; esac  # -*: an option, as given
set -- "$file" "$@"
if [ -z "$runner" ] || [ ! -x "$runner" ]; then
  echo "FAIL: phybin runner '${runner}' is missing or not executable"
  exit 1
fi
if [ "$code" = none ]; then
  expected_status=0
else
  expected_status=$((0x70 + (code & 0xF)))
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/phybin-badinput.XXXXXX")" || exit 1
trap 'rm -rf "$work"' EXIT
ulimit -c 0

exec 3>&2 2>/dev/null  # keep the shell's "Segmentation fault" lines out
(cd "$work" && exec timeout --kill-after=10 "${PHYBIN_GUEST_TIMEOUT:-300}" \
  env -i "${guest_base_env[@]}" "${settings[@]}" "$runner" "$@") \
  < /dev/null > "$work/out" 2> "$work/err"
status=$?
exec 2>&3 3>&-

problems=()
if [ "$same_as_native" = 1 ]; then
  (cd "$work" && exec env -i "${guest_base_env[@]}" "${settings[@]}" "$@") </dev/null >"$work/native.out" 2>/dev/null
  native_status=$?
  expected_status=$native_status
  if ! cmp -s "$work/native.out" "$work/out"; then
    problems+=("standard output differs from the native run's: $(diff "$work/native.out" "$work/out" | head -5)")
  fi
fi
if [ "$status" -gt 128 ]; then
  problems+=("phybin died by signal $((status - 128)) ($(kill -l $((status - 128)) 2>/dev/null)); it must report an error")
elif [ "$status" -ne "$expected_status" ]; then
  problems+=("exit status $status, expected $expected_status (0x70 + (code & 0xF) for error $code; 0 for none)")
fi
if [ "$code" != none ] && ! grep -qiF -- "$code" "$work/err"; then
  problems+=("stderr does not contain the error code $code")
fi
for text in "${texts[@]}"; do
  if ! grep -qiF -- "$text" "$work/err"; then
    problems+=("stderr does not mention '$text'")
  fi
done

if [ "${#problems[@]}" -ne 0 ]; then
  for p in "${problems[@]}"; do echo "FAIL: $p"; done
  echo "command: $runner $*"
  echo "--- stderr (first 4000 bytes) ---"
  head -c 4000 "$work/err"
  echo "--- stdout (first 1000 bytes) ---"
  head -c 1000 "$work/out"
  exit 1
fi
echo "PASS: status $status, stderr: $(head -n 3 "$work/err")"
exit 0
