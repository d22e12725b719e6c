#!/usr/bin/env bash
# run_package_test.sh HELLO: the Debian package (scripts/package --no-build,
# lintian clean) in an ARM64 system with
# dpkg and binfmt-support (scripts/bootstrap's package world, an arm64
# Debian with the amd64 C library of multiarch).  In a binfmt_misc
# instance of its own (a user namespace's; on an x86-64 machine with the
# i386 qemu for the world's arm64 programs: binfmt_world.sh) and in
# a copy of the world (which stays unchanged): `dpkg -i` registers phybin
# through update-binfmts, so that ./hello (x86-64, dynamic) starts through
# it by name; `dpkg -r` removes the registration.
set -uo pipefail
# shellcheck source=binfmt_world.sh
source "$(dirname "$0")/binfmt_world.sh"
hello=$1
world=$PHYBIN_PACKAGE_WORLD
require_binfmt_of_its_own
require_i386_programs
[[ -x $world/usr/sbin/update-binfmts ]] || { echo "FAIL: no package world at $world (scripts/bootstrap)"; exit 1; }
work=$(mktemp -d /tmp/phybin-package.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cp -a "$world" "$work/root" || { echo "FAIL: cannot copy $world"; exit 1; }
"$repo/scripts/package" --no-build "$work/deb" || { echo "FAIL: scripts/package (lintian?)"; exit 1; }
cp "$work"/deb/phybin_*_arm64.deb "$work/phybin.deb"
cp "$hello" "$work/hello"
cat >"$work/inside.sh" <<EOF
cd $work
dpkg -i phybin.deb >dpkg-i.out 2>&1; echo "dpkg -i: \$?"
phybin status; echo "status: \$?"
PHYBIN_LOG_LEVEL=2 ./hello 2>hello.err; echo "hello: \$?"
dpkg -r phybin >dpkg-r.out 2>&1; echo "dpkg -r: \$?"
[ -e /proc/sys/fs/binfmt_misc/phybin ]; echo "entry after removal: \$?"
PHYBIN_LOG_LEVEL=2 ./hello 2>removed.err
EOF
in_binfmt_world "$work/root" "$work/inside.sh" /proc /sys /dev "$work" >"$work/out" 2>"$work/err"
fail=0
want=$(printf '%s\n' "dpkg -i: 0" "status: 0" "hello: 0" "dpkg -r: 0" "entry after removal: 1")
got=$(grep -E '^(dpkg -i|status|hello|dpkg -r|entry after removal): ' "$work/out")
[[ $got == "$want" ]] || { echo "FAIL: statuses:"; diff <(echo "$want") <(echo "$got"); fail=1; }
grep -q "^phybin: loaded" "$work/hello.err" || { echo "FAIL: ./hello did not start through phybin"; fail=1; }
grep -q "^phybin: loaded" "$work/removed.err" && { echo "FAIL: ./hello started through phybin after dpkg -r"; fail=1; }
if ((fail)); then
  cat "$work/out" "$work/err" "$work"/dpkg-*.out 2>/dev/null | tail -40
  exit 1
fi
echo "PASS: dpkg -i registered phybin (./hello ran through it by name), dpkg -r removed the registration"
cat "$work/out"
