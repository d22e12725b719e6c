#!/bin/bash
# Runs one case of cases.list twice and compares the runs: natively, in a
# chroot into the amd64 root ($PHYBIN_AMD64_ROOT, made by scripts/bootstrap),
# and through phybin in the ARM64 world with PHYBIN_ROOTFS set to that root
# (scripts/phybin-world).  Standard output byte for byte and the exit
# status must be the same; standard error is shown when they are not.
#
# usage: run_world_test.sh [--warm] NAME
#
# --warm: phybin runs twice with a fresh translation cache directory; the
# second run must load the first run's translations, wake blocks of the
# files it uses (the dynamic loader's libraries included, moved to where
# they load this time) and still give the native output.
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

warm=0
if [[ ${1:-} == --warm ]]; then
  warm=1
  shift
fi
[[ $# -eq 1 ]] || die "usage: run_world_test.sh [--warm] NAME"
name=$1
line=$(grep -m1 -e "^$name | " "$here/cases.list") || die "no case '$name' in $here/cases.list"
command=${line#* | }
root=$PHYBIN_AMD64_ROOT
[[ -x $root/bin/sh ]] || die "no amd64 root at $root; run scripts/bootstrap"

scratch=$(mktemp -d /tmp/phybin-world.XXXXXX) || die "mktemp failed"
cleanup() {
  [[ ${PHYBIN_WORLD_KEEP:-0} == 1 ]] && { echo "kept $scratch"; return; }
  as_root rm -rf "$scratch"
  as_root rmdir "$root$scratch/native" "$root$scratch" 2>/dev/null
}
trap cleanup EXIT
mkdir -p "$scratch/native" && cp -r "$here/data/." "$scratch/native/" || die "cannot copy data/"
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

# run_phybin RUN CACHE_SETTINGS...: one phybin run in a fresh copy of data/.
run_phybin() {
  local run=$1
  shift
  rm -rf "$scratch/phybin" && mkdir -p "$scratch/phybin" && cp -r "$here/data/." "$scratch/phybin/" ||
    die "cannot copy data/"
  (cd "$scratch/phybin" && env -i "${guest_env[@]}" PHYBIN_ROOTFS="$root" "$@" \
    ${PHYBIN_BIN:+PHYBIN_BIN="$PHYBIN_BIN"} "$PHYBIN_REPO/scripts/phybin-world" /bin/sh -c "$command") \
    >"$scratch/$run.out" 2>"$scratch/$run.err" </dev/null
}
if [[ $warm == 1 ]]; then
  cache=(PHYBIN_CACHE_DIR="$scratch/translations" PHYBIN_LOG_LEVEL=2)
  run_phybin cold "${cache[@]}"
  cold_status=$?
  if ! cmp -s "$scratch/native.out" "$scratch/cold.out" || [[ $cold_status -ne $native_status ]]; then
    echo "FAIL: $name: the cold run (which saves) differs: status $cold_status"
    diff -u --label native --label cold "$scratch/native.out" "$scratch/cold.out" | head -20
    head -c 3000 "$scratch/cold.err"
    exit 1
  fi
  run_phybin phybin "${cache[@]}"
  phybin_status=$?
  woken=$(grep -c '^phybin: [0-9]* of [0-9]* saved blocks woken' "$scratch/phybin.err")
  moved=$(grep -c '^phybin: [0-9]* of [0-9]* saved blocks woken .*(moved by [+-][1-9]' "$scratch/phybin.err")
  if ((woken == 0)); then
    echo "FAIL: $name: the warm run woke no saved translations"
    grep '^phybin:' "$scratch/cold.err" "$scratch/phybin.err" | head -20
    exit 1
  fi
  warm_note=", warm run: saved blocks of $woken files woken ($moved of them loaded elsewhere than in the cold run)"
else
  run_phybin phybin PHYBIN_CACHE_DIR=off
  phybin_status=$?
fi

if [[ $native_status -eq 125 ]]; then
  echo "FAIL: $name: the native run could not be set up"
  cat "$scratch/native.err"
  exit 1
fi
if cmp -s "$scratch/native.out" "$scratch/phybin.out" && [[ $native_status -eq $phybin_status ]]; then
  echo "PASS: $name: stdout $(wc -c <"$scratch/native.out") bytes identical, status $native_status${warm_note:-}"
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
