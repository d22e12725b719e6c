#!/bin/bash
# Runs one x86-64 guest program natively and through phybin and compares
# the two runs: stdout byte for byte and the exit status as the shell sees
# it (128 + N for death by signal N).  stderr is shown on failure only,
# because phybin and qemu may add a line when the guest crashes.  Lines
# that begin with `model: ` are the exception: they hold values Intel and
# AMD compute differently, and are compared with PROG.model (README.md,
# "Vendor-model lines").
#
# usage: run_guest_test.sh --runner PATH --data-dir DIR --name PROG
#                          [--phybin-env VAR=VAL]... -- BINARY
#
#   --runner      the phybin command (scripts/phybin); the environment
#                 variable PHYBIN_GUEST_RUNNER overrides it, so that the
#                 harness itself can be checked with stand-in runners
#   --data-dir    where PROG.args, PROG.env, PROG.stdin and PROG.model live
#                 (optional files: one argument per line / VAR=VAL per line /
#                 stdin / the model lines the program prints)
#   --name        the program's name, used to find those files
#   --phybin-env  an extra variable for the phybin run only (repeatable)
#   --warm        run phybin twice with a fresh translation cache directory:
#                 the first run saves its translations, the second must load
#                 them (translating less); both must match the native run.
#                 Without it phybin keeps no translations (PHYBIN_CACHE_DIR=off)
#
# Environment: PHYBIN_GUEST_TIMEOUT (seconds for the phybin run, default
# 300), PHYBIN_GUEST_KEEP=1 keeps the work directory for inspection,
# PHYBIN_GUEST_NATIVE_VENDOR=AuthenticAMD (say) pretends the build CPU is of
# that vendor (the native run's model lines are then not checked).
set -u
# shellcheck source=guest_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/guest_env.sh"

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

guest_inputs "$data_dir" "$name"

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
# PHYBIN_IR_VERIFY=1: phybin checks every block it translates (ir::verify).
cache_env=(PHYBIN_CACHE_DIR=off PHYBIN_IR_VERIFY=1)
if [ "$warm" = 1 ]; then
  runs=(cold warm)
  cache_env=(PHYBIN_CACHE_DIR="$work/translations" PHYBIN_LOG_LEVEL=2 PHYBIN_IR_VERIFY=1)
fi
exec 3>&2 2>/dev/null
guest_run "$work" native 60 env -i "${fixed_env[@]}" "$binary" "${args[@]}"
for run in "${runs[@]}"; do
  guest_run "$work" "$run" "$phybin_timeout" env -i "${fixed_env[@]}" "${cache_env[@]}" PHYBIN_LOG_FILE="$work/$run.log" \
    "${phybin_env[@]}" "$runner" "$binary" "${args[@]}"
done
exec 2>&3 3>&-

native_status="$(cat "$work/native.status")"
# Build machines that are no reference for a program: a virtual machine
# whose CPUID hides extensions its CPU still executes, a kernel without the
# 32-bit segments (IA32 emulation off) that every Debian kernel has.
# NAME.native-unfit holds an extended regular expression: a native output
# matching it cannot be compared with (exit 77: skipped, with the reason).
# NAME.native-sed holds a sed script that rewrites the native output into
# what a consistent machine prints (the phybin run is not rewritten).
# NAME.expected, where it exists, stands in for such a native run: what a
# consistent machine prints, worked out by hand (status 0).
expected_instead=""
if [ -f "$data_dir/$name.native-unfit" ] &&
   unfit=$(grep -m1 -E -f <(grep -v '^#' "$data_dir/$name.native-unfit") "$work/native.out"); then
  if [ ! -f "$data_dir/$name.expected" ]; then
    echo "SKIPPED: this build machine is no reference for $name (native run printed: $unfit);" \
         "see $name.native-unfit"
    exit 77
  fi
  cp "$data_dir/$name.expected" "$work/native.out"
  echo 0 >"$work/native.status"
  native_status=0
  expected_instead="; the native run is no reference here ($unfit): compared with $name.expected"
fi
if [ -f "$data_dir/$name.native-sed" ]; then
  sed -E -i -f "$data_dir/$name.native-sed" "$work/native.out"
fi
model_file="$data_dir/$name.model"
build_vendor="$(guest_build_vendor)"
guest_split_model "$work/native.out"
native_model_lines=$(grep -c '' "$work/native.out.model")

# show_failure RUN: what helps to see why RUN failed, then exit 1.
show_failure() {
  echo "native status: $(describe_status "$native_status")"
  echo "$1 status: $(describe_status "$(cat "$work/$1.status")")"
  echo "runner: $runner ${cache_env[*]} ${phybin_env[*]}"
  echo "--- native stderr (first 2000 bytes) ---"
  head -c 2000 "$work/native.err"
  echo "--- $1 stderr (first 4000 bytes) ---"
  head -c 4000 "$work/$1.err"
  echo "--- $1 log (last 20 lines) ---"
  tail -n 20 "$work/$1.log" 2>/dev/null
  exit 1
}

# Model lines (`model: ...`, see README.md) hold what the two vendors do
# differently: they are compared with NAME.model, and the native run's only
# on a CPU of the model's vendor.  The rest, with the places of the model
# lines, must be the same as in the native run.
if [ "$native_model_lines" -gt 0 ] && [ ! -f "$model_file" ]; then
  echo "FAIL: $name prints $native_model_lines model lines, but there is no $model_file" \
       "(make it with tests/guest/make_model_files.sh on a $guest_model_vendor machine)"
  exit 1
fi
if [ "$native_model_lines" -eq 0 ] && [ -f "$model_file" ]; then
  echo "FAIL: $model_file exists, but the native run printed no model lines"
  show_failure native
fi
if [ "$build_vendor" = "$guest_model_vendor" ] && [ -f "$model_file" ] &&
   ! cmp -s "$model_file" "$work/native.out.model"; then
  echo "FAIL: the native run's model lines differ from $name.model (this $build_vendor CPU does not do what" \
       "the model says, or the file is out of date: see tests/guest/make_model_files.sh)"
  diff -u -a --label "$name.model" --label native "$model_file" "$work/native.out.model" | head -n 200
  show_failure native
fi

for run in "${runs[@]}"; do
  status="$(cat "$work/$run.status")"
  guest_split_model "$work/$run.out"
  failed=0
  if ! cmp -s "$work/native.out.rest" "$work/$run.out.rest"; then
    failed=1
    echo "FAIL: stdout of the $run run differs (native $(wc -c < "$work/native.out") bytes, phybin $(wc -c < "$work/$run.out") bytes)"
    diff -u -a --label native --label "$run" "$work/native.out.rest" "$work/$run.out.rest" | head -n 200
  fi
  if [ -f "$model_file" ] && ! cmp -s "$model_file" "$work/$run.out.model"; then
    failed=1
    echo "FAIL: the model lines of the $run run differ from $name.model"
    diff -u -a --label "$name.model" --label "$run" "$model_file" "$work/$run.out.model" | head -n 200
  fi
  if [ "$native_status" != "$status" ]; then
    failed=1
    echo "FAIL: exit status of the $run run differs"
  fi
  if [ "$failed" -ne 0 ] || [ "$native_status" -eq 124 ]; then
    show_failure "$run"
  fi
done

# What the model lines were compared with, for the PASS line.
outside=""
[ "$native_model_lines" -gt 0 ] && outside=" outside the model lines"
if [ "$native_model_lines" -eq 0 ]; then
  against="no model lines (build CPU $build_vendor)"
elif [ "$build_vendor" = "$guest_model_vendor" ]; then
  against="$native_model_lines model lines: vendor model $guest_model_vendor; build CPU $build_vendor: native model lines checked too"
else
  against="$native_model_lines model lines: vendor model $guest_model_vendor; build CPU ${build_vendor:-unknown}: model lines checked against $name.model only"
fi

# translated_blocks RUN: the count in the statistics line the run logged.
translated_blocks() {
  sed -n 's/^phybin: \([0-9]*\) blocks translated.*/\1/p' "$work/$1.log" | tail -n 1
}
if [ "$warm" = 1 ]; then
  loaded="$(sed -n 's/^phybin: loaded \([0-9]*\) blocks of [0-9]* files from .*/\1/p' "$work/warm.log")"
  cold_blocks="$(translated_blocks cold)"
  warm_blocks="$(translated_blocks warm)"
  if [ -z "$loaded" ] || [ "$loaded" -eq 0 ] || [ -z "$warm_blocks" ] || [ "$warm_blocks" -ge "$cold_blocks" ]; then
    echo "FAIL: the second run did not reuse the saved translations (loaded: ${loaded:-none}," \
         "translated: cold ${cold_blocks:-?}, warm ${warm_blocks:-?})"
    tail -n 20 "$work/cold.log" "$work/warm.log"
    exit 1
  fi
  echo "PASS: $name: cold and warm runs identical to native$outside (stdout $(wc -c < "$work/native.out") bytes," \
       "status $(describe_status "$native_status")); warm run loaded $loaded blocks, translated $warm_blocks of $cold_blocks;" \
       "$against$expected_instead"
  exit 0
fi
echo "PASS: $name: stdout $(wc -c < "$work/native.out") bytes identical$outside, status $(describe_status "$native_status"); $against$expected_instead"
exit 0
