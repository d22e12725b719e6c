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
#   --warm        run phybin twice with a fresh translation cache directory:
#                 the first run saves its translations, the second must load
#                 them (translating less); both must match the native run.
#                 Without it phybin keeps no translations (PHYBIN_CACHE_DIR=off)
#
# Environment: PHYBIN_GUEST_TIMEOUT (seconds for the phybin run, default
# 300), PHYBIN_GUEST_KEEP=1 keeps the work directory for inspection.
set -u

runner=""
data_dir=""
name=""
phybin_env=()
warm=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runner) runner="$2"; shift 2 ;;
    --data-dir) data_dir="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    --phybin-env) phybin_env+=("$2"); shift 2 ;;
    --warm) warm=1; shift ;;
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
runs=(phybin)
cache_env=(PHYBIN_CACHE_DIR=off)
if [ "$warm" = 1 ]; then
  runs=(cold warm)
  cache_env=(PHYBIN_CACHE_DIR="$work/translations" PHYBIN_LOG_LEVEL=2)
fi
exec 3>&2 2>/dev/null
run_one native 60 env -i "${fixed_env[@]}" "$binary" "${args[@]}"
for run in "${runs[@]}"; do
  run_one "$run" "$phybin_timeout" env -i "${fixed_env[@]}" "${cache_env[@]}" PHYBIN_LOG_FILE="$work/$run.log" \
    "${phybin_env[@]}" "$runner" "$binary" "${args[@]}"
done
exec 2>&3 3>&-

native_status="$(cat "$work/native.status")"
failed=0
for run in "${runs[@]}"; do
  status="$(cat "$work/$run.status")"
  if ! cmp -s "$work/native.out" "$work/$run.out"; then
    failed=1
    echo "FAIL: stdout of the $run run differs (native $(wc -c < "$work/native.out") bytes, phybin $(wc -c < "$work/$run.out") bytes)"
    diff -u -a --label native --label "$run" "$work/native.out" "$work/$run.out" | head -n 200
  fi
  if [ "$native_status" != "$status" ]; then
    failed=1
    echo "FAIL: exit status of the $run run differs"
  fi
  if [ "$failed" -ne 0 ] || [ "$native_status" -eq 124 ]; then
    echo "native status: $(describe_status "$native_status")"
    echo "$run status: $(describe_status "$status")"
    echo "runner: $runner ${cache_env[*]} ${phybin_env[*]}"
    echo "--- native stderr (first 2000 bytes) ---"
    head -c 2000 "$work/native.err"
    echo "--- $run stderr (first 4000 bytes) ---"
    head -c 4000 "$work/$run.err"
    echo "--- $run log (last 20 lines) ---"
    tail -n 20 "$work/$run.log" 2>/dev/null
    exit 1
  fi
done

# translated_blocks RUN: the count in the statistics line the run logged.
translated_blocks() {
  sed -n 's/^phybin: \([0-9]*\) blocks translated.*/\1/p' "$work/$1.log" | tail -n 1
}
if [ "$warm" = 1 ]; then
  loaded="$(sed -n 's/^phybin: loaded \([0-9]*\) blocks from .*/\1/p' "$work/warm.log")"
  cold_blocks="$(translated_blocks cold)"
  warm_blocks="$(translated_blocks warm)"
  if [ -z "$loaded" ] || [ "$loaded" -eq 0 ] || [ -z "$warm_blocks" ] || [ "$warm_blocks" -ge "$cold_blocks" ]; then
    echo "FAIL: the second run did not reuse the saved translations (loaded: ${loaded:-none}," \
         "translated: cold ${cold_blocks:-?}, warm ${warm_blocks:-?})"
    tail -n 20 "$work/cold.log" "$work/warm.log"
    exit 1
  fi
  echo "PASS: $name: cold and warm runs identical to native (stdout $(wc -c < "$work/native.out") bytes," \
       "status $(describe_status "$native_status")); warm run loaded $loaded blocks, translated $warm_blocks of $cold_blocks"
  exit 0
fi
echo "PASS: $name: stdout $(wc -c < "$work/native.out") bytes identical, status $(describe_status "$native_status")"
exit 0
