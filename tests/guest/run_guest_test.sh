#!/bin/bash
# Runs one x86-64 guest program natively and through phybin and compares
# the two runs: stdout byte for byte and the exit status as the shell sees
# it (128 + N for death by signal N).  stderr is shown on failure only,
# because phybin and qemu may add a line when the guest crashes.
#
# usage: run_guest_test.sh --runner PATH --data-dir DIR --name PROG
#                          [--phybin-env VAR=VAL]... -- BINARY
#
#   --runner      the phybin command (scripts/phybin); the environment
#                 variable PHYBIN_GUEST_RUNNER overrides it, so that the
#                 harness itself can be checked with stand-in runners
#   --data-dir    where PROG.args, PROG.env and PROG.stdin live (optional
#                 files: one argument per line / VAR=VAL per line / stdin)
#   --name        the program's name, used to find those files
#   --phybin-env  an extra variable for the phybin run only (repeatable)
#
# Environment: PHYBIN_GUEST_TIMEOUT (seconds for the phybin run, default
# 300), PHYBIN_GUEST_KEEP=1 keeps the work directory for inspection.
set -u

runner=""
data_dir=""
name=""
phybin_env=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runner) runner="$2"; shift 2 ;;
    --data-dir) data_dir="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    --phybin-env) phybin_env+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "run_guest_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ $# -ne 1 ] || [ -z "$name" ] || [ -z "$data_dir" ]; then
  echo "usage: run_guest_test.sh --runner PATH --data-dir DIR --name PROG [--phybin-env VAR=VAL]... -- BINARY" >&2
  exit 2
fi
binary="$1"
runner="${PHYBIN_GUEST_RUNNER:-$runner}"
# Both commands run from a temporary directory: make relative paths absolute.
case "$binary" in /*) ;; *) binary="$PWD/$binary" ;; esac
case "$runner" in /*) ;; */*) runner="$PWD/$runner" ;; esac
phybin_timeout="${PHYBIN_GUEST_TIMEOUT:-300}"

if [ ! -x "$binary" ]; then
  echo "FAIL: guest binary $binary is missing (build the guest_programs target)"
  exit 1
fi
if [ -z "$runner" ] || [ ! -x "$runner" ]; then
  echo "FAIL: phybin runner '${runner}' is missing or not executable"
  exit 1
fi

# The fixed environment both runs get.  GLIBC_TUNABLES masks AVX and FMA
# from glibc's CPU dispatch in the native run: the host CPU has them, the
# x86-64 machine phybin presents does not, and libm's FMA variants of sin,
# exp, pow, atan2 ... round differently in the last bit from the SSE2 ones.
# The variable is part of both runs' environment, so the guest sees the
# same envp either way; under phybin it changes nothing.
fixed_env=(
  PATH=/usr/bin:/bin
  LANG=C
  HOME=/tmp
  "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-FMA,-FMA4,-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD"
)
if [ -f "$data_dir/$name.env" ]; then
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    fixed_env+=("$line")
  done < "$data_dir/$name.env"
fi
args=()
if [ -f "$data_dir/$name.args" ]; then
  mapfile -t args < "$data_dir/$name.args"
fi
stdin_file=/dev/null
if [ -f "$data_dir/$name.stdin" ]; then
  stdin_file="$data_dir/$name.stdin"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/phybin-guest.XXXXXX")" || exit 1
cleanup() {
  if [ "${PHYBIN_GUEST_KEEP:-0}" = 1 ]; then
    echo "work directory kept: $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
ulimit -c 0  # crashing guests must not leave core files behind

# run_one LABEL TIMEOUT COMMAND...: runs COMMAND in a fresh $work/cwd with
# the test's stdin, saving stdout, stderr and the shell's view of the
# exit status.  timeout(1) re-raises a signal that killed its child, so
# both runs report signals as 128 + N.
run_one() {
  local label="$1" limit="$2"
  shift 2
  rm -rf "$work/cwd" && mkdir "$work/cwd" || { echo "FAIL: cannot create $work/cwd"; exit 1; }
  (cd "$work/cwd" && exec timeout --kill-after=10 "$limit" "$@") \
    < "$stdin_file" > "$work/$label.out" 2> "$work/$label.err"
  echo $? > "$work/$label.status"
}

describe_status() {
  local s="$1"
  if [ "$s" -eq 124 ]; then
    echo "$s (timed out)"
  elif [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then
    echo "$s (killed by SIG$(kill -l $((s - 128)) 2>/dev/null || echo "?$((s - 128))"))"
  else
    echo "$s"
  fi
}

# The shell's job-control style messages ("Segmentation fault") come from
# this script's own stderr; keep them out of the test log.
exec 3>&2 2>/dev/null
run_one native 60 env -i "${fixed_env[@]}" "$binary" "${args[@]}"
run_one phybin "$phybin_timeout" env -i "${fixed_env[@]}" "${phybin_env[@]}" "$runner" "$binary" "${args[@]}"
exec 2>&3 3>&-

native_status="$(cat "$work/native.status")"
phybin_status="$(cat "$work/phybin.status")"
failed=0
if ! cmp -s "$work/native.out" "$work/phybin.out"; then
  failed=1
  echo "FAIL: stdout differs (native $(wc -c < "$work/native.out") bytes, phybin $(wc -c < "$work/phybin.out") bytes)"
  diff -u -a --label native --label phybin "$work/native.out" "$work/phybin.out" | head -n 200
fi
if [ "$native_status" != "$phybin_status" ]; then
  failed=1
  echo "FAIL: exit status differs"
fi
if [ "$failed" -ne 0 ] || [ "$native_status" -eq 124 ]; then
  echo "native status: $(describe_status "$native_status")"
  echo "phybin status: $(describe_status "$phybin_status")"
  echo "runner: $runner ${phybin_env[*]}"
  echo "--- native stderr (first 2000 bytes) ---"
  head -c 2000 "$work/native.err"
  echo "--- phybin stderr (first 4000 bytes) ---"
  head -c 4000 "$work/phybin.err"
  exit 1
fi
echo "PASS: $name: stdout $(wc -c < "$work/native.out") bytes identical, status $(describe_status "$native_status")"
exit 0
