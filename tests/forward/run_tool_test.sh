#!/usr/bin/env bash
# run_tool_test.sh TOOL SONAME [ARGS]: Debian's amd64 TOOL (from the amd64
# root, through phybin with PHYBIN_ROOTFS) prints what Debian's arm64 TOOL
# prints natively, both in the ARM64 world, and ends the same; phybin's
# log shows SONAME forwarded.  The amd64 root has the x86-64 SONAME too:
# phybin forwards it to the native library instead of translating it.
#   clinfo: the platforms and devices (-l), or every property (no
#     argument; that includes the ICD loader's, through a function
#     clGetExtensionFunctionAddress hands out).
#   rocminfo: without a GPU, what ROCm says (exit status 1).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
source "$repo/scripts/lib.sh"
tool=$1 soname=$2
shift 2
amd64_tool=$PHYBIN_AMD64_ROOT/usr/bin/$tool arm64_tool=$PHYBIN_ARM64_ROOT/usr/bin/$tool
for f in "$amd64_tool" "$arm64_tool"; do
  [[ -x $f ]] || { echo "FAIL: $f is missing (scripts/bootstrap)"; exit 1; }
done
work=$(mktemp -d /tmp/phybin-tool.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$arm64_tool" "./$tool.aarch64"  # the world sees /tmp, not the tree's own path
fixed_env=(PATH=/usr/bin:/bin LANG=C HOME="$work" XDG_CACHE_HOME="$work/cache")
env -i "${fixed_env[@]}" PHYBIN_BIN="$work/$tool.aarch64" "$repo/scripts/phybin-world" "$@" >native.out 2>native.err
native=$?
env -i "${fixed_env[@]}" PHYBIN_ROOTFS="$PHYBIN_AMD64_ROOT" PHYBIN_LOG_LEVEL=2 PHYBIN_CACHE_DIR=off \
  "$repo/scripts/phybin-world" "$amd64_tool" "$@" >phybin.out 2>phybin.err
status=$?
fail=0
[[ $native -eq $status ]] || { echo "FAIL: exit status native $native, phybin $status"; fail=1; }
[[ -s native.out ]] || { echo "FAIL: the native $tool prints nothing"; fail=1; }
cmp -s native.out phybin.out || { echo "FAIL: the outputs differ"; diff native.out phybin.out | head; fail=1; }
grep -q "forwarding $soname to the native AArch64 library" phybin.err ||
  { echo "FAIL: phybin's log does not show $soname forwarded"; fail=1; }
if ((fail)); then
  tail -20 phybin.err
  exit 1
fi
echo "PASS: amd64 $tool $* through phybin prints what arm64 $tool $* does ($(wc -l <phybin.out) lines, exit status $status):"
head -20 phybin.out
