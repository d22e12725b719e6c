#!/bin/bash
# Runs one case of cases.list twice and compares the runs: natively, in a
# chroot into the amd64 root ($PHYBIN_AMD64_ROOT, made by scripts/bootstrap),
# and through phybin in the ARM64 world with PHYBIN_ROOTFS set to that root
# (scripts/phybin-world).  Standard output byte for byte and the exit
# status must be the same; standard error is shown when they are not.
#
# usage: run_world_test.sh NAME
#
# Both runs start the root's /bin/sh with the case's command, in a fresh
# copy of data/ under /tmp, with the environment PATH=/usr/bin:/bin
# LANG=C.UTF-8 HOME=/nonexistent (and phybin's settings for the phybin
# run).  Needs root for the chroot (uses sudo otherwise).
# Environment: PHYBIN_WORLD_KEEP=1 keeps the scratch directories.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/lib.sh
source "$here/../../scripts/lib.sh"

[[ $# -eq 1 ]] || die "usage: run_world_test.sh NAME"
name=$1
line=$(grep -m1 -e "^$name | " "$here/cases.list") || die "no case '$name' in $here/cases.list"
command=${line#* | }
root=$PHYBIN_AMD64_ROOT
[[ -x $root/bin/sh ]] || die "no amd64 root at $root; run scripts/bootstrap"

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo --preserve-env -- "$@"; fi
}

scratch=$(mktemp -d /tmp/phybin-world.XXXXXX) || die "mktemp failed"
cleanup() {
  [[ ${PHYBIN_WORLD_KEEP:-0} == 1 ]] && { echo "kept $scratch"; return; }
  as_root rm -rf "$scratch"
  as_root rmdir "$root$scratch/native" "$root$scratch" 2>/dev/null
}
trap cleanup EXIT
for run in native phybin; do
  mkdir -p "$scratch/$run" && cp -r "$here/data/." "$scratch/$run/" || die "cannot copy data/"
done
guest_env=(PATH=/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent)

# The native run sees the machine's /proc and /dev, as the phybin run does.
as_root unshare --mount --propagation private -- bash -c '
  root=$1 dir=$2
  shift 2
  mkdir -p "$root$dir" && mount --bind "$dir" "$root$dir" &&
    mount --rbind /proc "$root/proc" && mount --rbind /dev "$root/dev" || exit 125
  exec unshare --root="$root" --wd="$dir" -- "$@"
' world-native "$root" "$scratch/native" env -i "${guest_env[@]}" /bin/sh -c "$command" \
  >"$scratch/native.out" 2>"$scratch/native.err" </dev/null
native_status=$?

(cd "$scratch/phybin" && env -i "${guest_env[@]}" PHYBIN_ROOTFS="$root" PHYBIN_CACHE_DIR=off \
  ${PHYBIN_BIN:+PHYBIN_BIN="$PHYBIN_BIN"} "$PHYBIN_REPO/scripts/phybin-world" /bin/sh -c "$command") \
  >"$scratch/phybin.out" 2>"$scratch/phybin.err" </dev/null
phybin_status=$?

if [[ $native_status -eq 125 ]]; then
  echo "FAIL: $name: the native run could not be set up"
  cat "$scratch/native.err"
  exit 1
fi
if cmp -s "$scratch/native.out" "$scratch/phybin.out" && [[ $native_status -eq $phybin_status ]]; then
  echo "PASS: $name: stdout $(wc -c <"$scratch/native.out") bytes identical, status $native_status"
  exit 0
fi
echo "FAIL: $name: native status $native_status, phybin status $phybin_status"
echo "command: $command"
diff -u --label native --label phybin "$scratch/native.out" "$scratch/phybin.out" | head -40
echo "--- native stderr ---"
head -c 2000 "$scratch/native.err"
echo "--- phybin stderr ---"
head -c 4000 "$scratch/phybin.err"
exit 1
