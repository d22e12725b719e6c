#!/usr/bin/env bash
# run_clinfo_test.sh [ARGS]: Debian's amd64 clinfo (from the amd64 root,
# through phybin with PHYBIN_ROOTFS) prints what Debian's arm64 clinfo
# prints natively, both in the ARM64 world: the platforms and devices
# (-l), or every property (no argument; that includes the ICD loader's,
# through a function clGetExtensionFunctionAddress hands out).  The amd64
# root has the x86-64 ICD loader too: phybin forwards it to the native one
# instead of translating it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
source "$repo/scripts/lib.sh"
amd64_clinfo=$PHYBIN_AMD64_ROOT/usr/bin/clinfo arm64_clinfo=$PHYBIN_ARM64_ROOT/usr/bin/clinfo
for f in "$amd64_clinfo" "$arm64_clinfo"; do
  [[ -x $f ]] || { echo "FAIL: $f is missing (scripts/bootstrap)"; exit 1; }
done
work=$(mktemp -d /tmp/phybin-clinfo.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$arm64_clinfo" ./clinfo.aarch64  # the world sees /tmp, not the tree's own path
fixed_env=(PATH=/usr/bin:/bin LANG=C HOME="$work" XDG_CACHE_HOME="$work/cache")
env -i "${fixed_env[@]}" PHYBIN_BIN="$work/clinfo.aarch64" "$repo/scripts/phybin-world" "$@" >native.out 2>native.err
native=$?
env -i "${fixed_env[@]}" PHYBIN_ROOTFS="$PHYBIN_AMD64_ROOT" PHYBIN_LOG_LEVEL=2 PHYBIN_CACHE_DIR=off \
  "$repo/scripts/phybin-world" "$amd64_clinfo" "$@" >phybin.out 2>phybin.err
status=$?
fail=0
[[ $native -eq 0 && $status -eq 0 ]] || { echo "FAIL: exit status native $native, phybin $status"; fail=1; }
grep -q "Platform" native.out || { echo "FAIL: the native clinfo lists no platform"; fail=1; }
cmp -s native.out phybin.out || { echo "FAIL: the listings differ"; diff native.out phybin.out | head; fail=1; }
grep -q "forwarding libOpenCL.so.1 to the native AArch64 library" phybin.err ||
  { echo "FAIL: phybin's log does not show libOpenCL.so.1 forwarded"; fail=1; }
if ((fail)); then
  tail -20 phybin.err
  exit 1
fi
echo "PASS: amd64 clinfo $* through phybin prints what arm64 clinfo $* does ($(wc -l <phybin.out) lines):"
head -20 phybin.out
