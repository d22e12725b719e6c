#!/bin/bash
# (Re)makes tests/guest/programs/<prog>.model, the expected `model: ` lines
# of a guest program (README.md, "Vendor-model lines"), from native runs on
# a CPU of the model's vendor (GenuineIntel); refuses on any other.  Every
# program runs as run_guest_test.sh runs it natively (same environment,
# arguments, stdin, fresh working directory), once per build variant (O0,
# O2, O2pie), and the three must print the same model lines.
#
# usage: tests/guest/make_model_files.sh [--check] BUILD_DIR [PROG...]
#
#   BUILD_DIR  a host build directory with the guest programs built
#              (ninja -C BUILD_DIR guest_programs)
#   PROG       programs to do (default: every programs/*.c)
#   --check    write nothing; fail if a .model file is missing, stale or
#              left over (a program without model lines)
#
# A program without model lines loses its .model file.  Exit status 0 when
# everything was written (or, with --check, was up to date).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=guest_env.sh
source "$here/guest_env.sh"

check=0
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi
if [ $# -lt 1 ]; then
  echo "usage: make_model_files.sh [--check] BUILD_DIR [PROG...]" >&2
  exit 2
fi
build="$(cd "$1" 2>/dev/null && pwd)" || { echo "make_model_files.sh: no directory $1" >&2; exit 2; }
shift
data_dir="$here/programs"
vendor="$(guest_build_vendor)"
if [ "$vendor" != "$guest_model_vendor" ]; then
  echo "make_model_files.sh: refusing: the model is $guest_model_vendor and this CPU is ${vendor:-unknown};" \
       "model lines can only be recorded on a $guest_model_vendor machine" >&2
  exit 1
fi
progs=("$@")
if [ ${#progs[@]} -eq 0 ]; then
  for src in "$data_dir"/*.c; do
    progs+=("$(basename "$src" .c)")
  done
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/phybin-model.XXXXXX")" || exit 1
trap 'rm -rf "$work"' EXIT
ulimit -c 0
problems=0
for prog in "${progs[@]}"; do
  guest_inputs "$data_dir" "$prog"
  model_file="$data_dir/$prog.model"
  for variant in O0 O2 O2pie; do
    binary="$build/tests/guest/$variant/$prog"
    if [ ! -x "$binary" ]; then
      echo "$prog: $binary is missing (build the guest_programs target)"
      problems=$((problems + 1))
      continue 2
    fi
    exec 3>&2 2>/dev/null
    guest_run "$work" "$variant" 60 env -i "${fixed_env[@]}" "$binary" "${args[@]}"
    exec 2>&3 3>&-
    status="$(cat "$work/$variant.status")"
    if [ "$status" -eq 124 ] || [ "$status" -eq 126 ] || [ "$status" -eq 127 ]; then
      echo "$prog: the $variant build could not run or timed out (status $status)"
      problems=$((problems + 1))
      continue 2
    fi
    guest_split_model "$work/$variant.out"
  done
  agree=1
  for variant in O2 O2pie; do
    if ! cmp -s "$work/O0.out.model" "$work/$variant.out.model"; then
      agree=0
      echo "$prog: the model lines of the O0 and $variant builds differ:"
      diff -u -a --label O0 --label "$variant" "$work/O0.out.model" "$work/$variant.out.model" | head -n 40
    fi
  done
  if [ "$agree" -eq 0 ]; then
    problems=$((problems + 1))
    continue
  fi
  lines=$(grep -c '' "$work/O0.out.model")
  if [ "$lines" -eq 0 ]; then
    if [ -f "$model_file" ]; then
      if [ "$check" -eq 1 ]; then
        echo "$prog: prints no model lines, but $prog.model exists"
        problems=$((problems + 1))
      else
        rm -f "$model_file"
        echo "$prog: no model lines: removed $prog.model"
      fi
    fi
    continue
  fi
  if cmp -s "$work/O0.out.model" "$model_file"; then
    echo "$prog: $lines model lines, $prog.model up to date"
  elif [ "$check" -eq 1 ]; then
    echo "$prog: $prog.model is missing or out of date:"
    diff -u -a --label "$prog.model" --label native "$model_file" "$work/O0.out.model" 2>/dev/null | head -n 40
    problems=$((problems + 1))
  else
    cp "$work/O0.out.model" "$model_file"
    echo "$prog: $lines model lines written to $prog.model"
  fi
done
if [ "$problems" -ne 0 ]; then
  echo "make_model_files.sh: $problems program(s) need attention"
  exit 1
fi
