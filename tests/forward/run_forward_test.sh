#!/usr/bin/env bash
# run_forward_test.sh [--off | --off-translated] [--world ROOT] [--env VAR=VALUE | --native-env VAR=VALUE
#                     | --log TEXT]... SONAME PROGRAM
# Runs PROGRAM.x86_64 through phybin in the ARM64 world and PROGRAM.aarch64
# natively there; passes when both print the same and end the same, and
# phybin's log says SONAME was forwarded (no x86-64 copy of it translated).
# An OpenCL program also runs natively on this x86-64 machine, in the
# amd64 root with its x86-64 PoCL, and must print the same there.
# --world: both runs in the ARM64 world ROOT instead of scripts/bootstrap's
# first one (the ROCm 6 world); --env: a setting of the phybin run;
# --native-env: one of the native run; --log: a text phybin's log (level 2)
# must show.
# --off: with PHYBIN_FORWARD=none the guest must see what it would see
# without the library (the world has no x86-64 copy): the loader's error.
# --off-translated: the same with PHYBIN_ROOTFS on the amd64 root, which
# has the x86-64 ICD loader: it is translated like any other library and,
# pointed at an empty vendor directory (the root's x86-64 PoCL would be
# translated too, LLVM and all), finds no platform (-1001).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
off=0 translated=0 settings=() native_settings=() logs=()
[[ ${1:-} == --off ]] && off=1 && shift
[[ ${1:-} == --off-translated ]] && translated=1 && shift
world=()
[[ ${1:-} == --world ]] && world=(PHYBIN_ARM64_ROOT="$2") && shift 2
while [[ ${1:-} == --env || ${1:-} == --native-env || ${1:-} == --log ]]; do
  case $1 in
    --env) settings+=("$2") ;;
    --native-env) native_settings+=("$2") ;;
    *) logs+=("$2") ;;
  esac
  shift 2
done
soname=$1 program=$2
work=$(mktemp -d /tmp/phybin-forward.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fixed_env=(PATH=/usr/bin:/bin LANG=C HOME="$work" XDG_CACHE_HOME="$work/cache" "${world[@]}")

if ((translated)); then
  # shellcheck source=../../scripts/lib.sh
  source "$repo/scripts/lib.sh"
  mkdir no-vendors
  env -i "${fixed_env[@]}" PHYBIN_FORWARD=none PHYBIN_ROOTFS="$PHYBIN_AMD64_ROOT" PHYBIN_LOG_LEVEL=2 \
    OCL_ICD_VENDORS="$work/no-vendors" PHYBIN_CACHE_DIR=off "$repo/scripts/phybin-world" "$program.x86_64" \
    >off.out 2>off.err
  status=$?
  if [[ $status -ne 1 ]] || ! grep -qx "clGetPlatformIDs failed: -1001" off.out || grep -q "forwarding" off.err; then
    echo "FAIL: with PHYBIN_FORWARD=none and the amd64 root: status $status (want 1), stdout:"
    cat off.out
    tail -5 off.err
    exit 1
  fi
  echo "PASS: PHYBIN_FORWARD=none: the amd64 root's own $soname ran translated and found no platform"
  exit 0
fi

if ((off)); then
  env -i "${fixed_env[@]}" PHYBIN_FORWARD=none PHYBIN_CACHE_DIR=off "$repo/scripts/phybin-world" "$program.x86_64" \
    >off.out 2>off.err
  status=$?
  if [[ $status -ne 127 ]] || ! grep -q "$soname" off.err; then
    echo "FAIL: with PHYBIN_FORWARD=none: status $status (want 127, the loader's), stderr:"
    cat off.err
    exit 1
  fi
  echo "PASS: PHYBIN_FORWARD=none: the guest's loader does not find $soname ($(head -c 200 off.err))"
  exit 0
fi

env -i "${fixed_env[@]}" "${native_settings[@]}" PHYBIN_BIN="$program.aarch64" "$repo/scripts/phybin-world" \
  >native.out 2>native.err
native=$?
env -i "${fixed_env[@]}" PHYBIN_LOG_LEVEL=2 PHYBIN_CACHE_DIR=off "${settings[@]}" "$repo/scripts/phybin-world" \
  "$program.x86_64" >phybin.out 2>phybin.err
status=$?
fail=0
if [[ $native -ne $status ]]; then
  echo "FAIL: exit status native $native, phybin $status"
  fail=1
fi
if [[ $soname == libOpenCL.so.1 ]]; then
  # shellcheck source=../../scripts/lib.sh
  source "$repo/scripts/lib.sh"
  cp "$program.x86_64" ./program.x86_64
  # shellcheck disable=SC2016
  as_root unshare --mount --propagation private -- bash -c '
    root=$1
    shift
    for dir in /proc /sys /dev /tmp; do
      mkdir -p "$root$dir" && mount --rbind "$dir" "$root$dir" || exit 125
    done
    exec unshare --root="$root" --wd="$PWD" -- "$@"
  ' amd64-native "$PHYBIN_AMD64_ROOT" env -i "${fixed_env[@]}" "$work/program.x86_64" >x86.out 2>x86.err
  x86=$?
  if [[ $x86 -ne $status ]] || ! cmp -s x86.out phybin.out; then
    echo "FAIL: natively on x86-64 with x86-64 PoCL: exit status $x86 (phybin $status), output:"
    diff x86.out phybin.out | head -20
    tail -5 x86.err
    fail=1
  fi
fi
if ! cmp -s native.out phybin.out; then
  echo "FAIL: outputs differ"
  diff native.out phybin.out | head -20
  fail=1
fi
for text in "${logs[@]}"; do
  grep -qF -- "$text" phybin.err || { echo "FAIL: phybin's log does not show: $text"; fail=1; }
done
if ! grep -q "forwarding $soname to the native AArch64 library" phybin.err; then
  echo "FAIL: phybin's log does not show $soname forwarded"
  fail=1
fi
if ((fail)); then
  echo "--- phybin stderr"
  tail -20 phybin.err
  exit 1
fi
x86_note=
[[ -e x86.out ]] && x86_note=" (and natively on x86-64 with x86-64 PoCL)"
echo "PASS: $(basename "$program"): same output natively$x86_note and through phybin, $soname forwarded"
cat phybin.out
