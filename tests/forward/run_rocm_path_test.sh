#!/usr/bin/env bash
# run_rocm_path_test.sh PROGRAM: forwarded ROCm libraries are found where
# AMD's layout puts them.  A ROCm installation made here ($work/rocm/lib
# holding the world's arm64 libamdhip64.so.5): with PHYBIN_ROOTFS unset
# and PHYBIN_ROCM_PATH naming it, phybin forwards to that copy; naming a
# directory without it, phybin says so and takes the loader path's.  Both
# runs of PROGRAM.x86_64 print what PROGRAM.aarch64 prints natively.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
source "$repo/scripts/lib.sh"
program=$1
work=$(mktemp -d /tmp/phybin-rocm.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir -p rocm/lib empty/lib
cp -L "$PHYBIN_ARM64_ROOT/usr/lib/aarch64-linux-gnu/libamdhip64.so.5" rocm/lib/ || exit 1
fixed_env=(PATH=/usr/bin:/bin LANG=C HOME="$work")
env -i "${fixed_env[@]}" PHYBIN_BIN="$program.aarch64" "$repo/scripts/phybin-world" >native.out 2>native.err
native=$?
fail=0
for place in rocm empty; do
  env -i "${fixed_env[@]}" PHYBIN_ROCM_PATH="$work/$place" PHYBIN_LOG_LEVEL=2 PHYBIN_CACHE_DIR=off \
    "$repo/scripts/phybin-world" "$program.x86_64" >"$place.out" 2>"$place.err"
  status=$?
  [[ $status -eq $native ]] || { echo "FAIL ($place): exit status $status, natively $native"; fail=1; }
  cmp -s native.out "$place.out" || { echo "FAIL ($place): outputs differ"; diff native.out "$place.out" | head; fail=1; }
done
want="forwarding libamdhip64.so.5 to the native AArch64 library $work/rocm/lib/libamdhip64.so.5"
grep -q "$want" rocm.err || { echo "FAIL: with PHYBIN_ROCM_PATH=$work/rocm the log lacks: $want"; fail=1; }
grep -q "PHYBIN_ROCM_PATH=$work/empty: no usable" empty.err ||
  { echo "FAIL: with PHYBIN_ROCM_PATH=$work/empty phybin does not say the library is not there"; fail=1; }
grep -q "forwarding libamdhip64.so.5 to the native AArch64 library /usr/lib/aarch64-linux-gnu/" empty.err ||
  { echo "FAIL: with PHYBIN_ROCM_PATH=$work/empty phybin does not take the loader path's library"; fail=1; }
if ((fail)); then
  tail -5 rocm.err empty.err
  exit 1
fi
echo "PASS: PHYBIN_ROCM_PATH's lib/ is searched first, the loader path after; same output as natively:"
grep -h "forwarding libamdhip64" rocm.err empty.err
