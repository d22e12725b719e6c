#!/usr/bin/env bash
# run_binfmt_test.sh HELLO: phybin register / status / unregister in the
# ARM64 world.  The world gets a binfmt_misc instance of its own (that of
# a new user namespace, Linux 6.7 on), so that the build machine's own
# x86-64 programs never start through phybin: in it, qemu-aarch64 is
# registered for the world's arm64 programs (phybin among them), then
# `phybin register` makes an x86-64 program (HELLO, dynamic) and a script
# whose #! names an x86-64 interpreter (the amd64 root's dash) run by name,
# with the argv[0] they were started as.  Outside the world: the errors
# without root and without binfmt_misc mounted (PHYBIN_ERR_BINFMT).
set -uo pipefail
# shellcheck source=binfmt_world.sh
source "$(dirname "$0")/binfmt_world.sh"
hello=$1
phybin=$repo/build/arm64/phybin
root=$PHYBIN_ARM64_ROOT dash64=$PHYBIN_AMD64_ROOT/bin/dash
require_binfmt_of_its_own
require_i386_programs
[[ -x $dash64 ]] || { echo "FAIL: no x86-64 dash at $dash64 (scripts/bootstrap)"; exit 1; }
work=$(mktemp -d /tmp/phybin-binfmt.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cp "$hello" "$work/hello"
printf '#!%s\necho "script $0 says $1"\n' "$dash64" >"$work/script"
chmod +x "$work/hello" "$work/script"
ln -s "$dash64" "$work/mydash"

# Inside the world (its /bin/sh is arm64 dash, started by qemu).
cat >"$work/inside.sh" <<EOF
p=$phybin
\$p status; echo "status before: \$?"
\$p register && \$p register
\$p status; echo "status after: \$?"
export PHYBIN_LOG_LEVEL=2
./hello 2>hello.err; echo "hello: \$?"
./mydash -c 'echo "zero=\$0"' 2>mydash.err
./script word 2>script.err; echo "script: \$?"
unset PHYBIN_LOG_LEVEL
\$p unregister && \$p unregister
\$p status; echo "status at the end: \$?"
PHYBIN_LOG_LEVEL=2 ./hello 2>unregistered.err
EOF
in_binfmt_world "$root" "$work/inside.sh" /proc /sys /dev /tmp "$repo" "$PHYBIN_AMD64_ROOT" >"$work/out" 2>"$work/err"
fail=0
want=$(printf '%s\n' "status before: 1" "status after: 0" "hello: 0" "script: 0" "status at the end: 1")
got=$(grep -E '^(status [a-z ]+|hello|script): ' "$work/out")
[[ $got == "$want" ]] || { echo "FAIL: exit statuses:"; diff <(echo "$want") <(echo "$got"); fail=1; }
# Each started through phybin (on an x86-64 machine the kernel would run
# them itself otherwise), and after unregister no longer.
for run in hello mydash script; do
  grep -q "^phybin: loaded" "$work/$run.err" || { echo "FAIL: ./$run did not start through phybin"; fail=1; }
done
grep -q "^phybin: loaded" "$work/unregistered.err" && { echo "FAIL: ./hello started through phybin after unregister"; fail=1; }
grep -q "already registered" "$work/out" || { echo "FAIL: a second register did not say it was registered"; fail=1; }
grep -q "phybin: not registered" "$work/out" || { echo "FAIL: a second unregister did not say so"; fail=1; }
grep -qF "script ./script says word" "$work/out" || { echo "FAIL: the #! script did not run"; fail=1; }
grep -q "^hello$" "$work/out" || { echo "FAIL: ./hello printed nothing"; fail=1; }
# dash -c's $0 is its argv[0]: the name it was started by must be kept (flag P).
grep -qx "zero=./mydash" "$work/out" || { echo "FAIL: the program's argv[0] was not kept"; fail=1; }

# Without root, and without binfmt_misc mounted: clear errors.
no_root=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$repo/scripts/phybin" register 2>&1)
status=$?
[[ $status -eq $((0x70 + 0xC)) && $no_root == *"0x100C"*"needs root"* ]] ||
  { echo "FAIL: register without root: status $status: $no_root"; fail=1; }
unmounted=$(unshare --mount --propagation private -- bash -c \
  'umount /proc/sys/fs/binfmt_misc && exec "$1" register' - "$repo/scripts/phybin" 2>&1)
status=$?
[[ $status -eq $((0x70 + 0xC)) && $unmounted == *"0x100C"*"not mounted"* ]] ||
  { echo "FAIL: register without binfmt_misc: status $status: $unmounted"; fail=1; }
if ((fail)); then
  echo "--- world's output"
  cat "$work/out" "$work/err"
  exit 1
fi
echo "PASS: register, status, unregister; ./hello and an x86-64 #! script ran by name; errors without root and mount"
cat "$work/out"
