# Sourced by run_binfmt_test.sh and run_package_test.sh (bash, after
# scripts/lib.sh): running a script in an ARM64 world that has a
# binfmt_misc instance of its own, that of a new user namespace (Linux 6.7
# on), so that what the script registers never reaches the build
# machine's own programs.
# shellcheck shell=bash

# The repository and its scripts' facts (scripts/lib.sh), for both tests.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
source "$repo/scripts/lib.sh"

# in_binfmt_world ROOT SCRIPT BIND...: runs SCRIPT with ROOT's /bin/sh,
# ROOT as /, the BINDs (absolute directories) at the same paths in it.  On
# an x86-64 machine the world's arm64 programs need qemu, which must not be
# an x86-64 program (phybin's x86-64 entry would take it, and the kernel
# would loop): the i386 qemu-aarch64-static of scripts/bootstrap, registered
# in the instance with flag F.
# Exits 77 (the tests' SKIP_RETURN_CODE) without root, and on a kernel
# without a binfmt_misc per user namespace: there is one binfmt_misc, and
# registering in it would send the build machine's own x86-64 programs
# through phybin.
require_binfmt_of_its_own() {
  [[ $EUID -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
  unshare --user --map-root-user --mount -- mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null &&
    return 0
  echo "SKIP: this kernel ($(uname -r)) has no binfmt_misc of a user namespace's own (Linux 6.7 on)"
  exit 77
}

# On an x86-64 machine the world's arm64 programs run under an i386 qemu
# (in_binfmt_world): the kernel must run 32-bit programs (IA32 emulation,
# which every Debian kernel has; a virtual machine's may not).
require_i386_programs() {
  [[ $PHYBIN_HOST_ARCH == x86_64 ]] || return 0
  [[ -x $PHYBIN_QEMU_I386 ]] || return 0  # in_binfmt_world says it is missing
  "$PHYBIN_QEMU_I386" --version >/dev/null 2>&1 && return 0
  echo "SKIP: this kernel ($(uname -r)) runs no 32-bit x86 programs (IA32 emulation off), and the world's" \
       "arm64 programs need the i386 qemu-aarch64"
  exit 77
}

in_binfmt_world() {
  local root=$1 script=$2 qemu_line=
  shift 2
  if [[ $PHYBIN_HOST_ARCH == x86_64 ]]; then
    [[ -x $PHYBIN_QEMU_I386 ]] || { echo "FAIL: no i386 qemu at $PHYBIN_QEMU_I386 (scripts/bootstrap)"; return 1; }
    qemu_line=$(grep -v -e '^#' -e '^[[:space:]]*$' /usr/lib/binfmt.d/qemu-aarch64.conf | head -n1 |
      sed -E "s#:[^:]*:[A-Z]*\$#:$PHYBIN_QEMU_I386:F#")
  fi
  # shellcheck disable=SC2016
  unshare --user --map-root-user --mount --propagation private -- bash -c '
    set -e
    root=$1 script=$2 qemu_line=$3
    shift 3
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [[ -z $qemu_line ]] || printf "%s" "$qemu_line" >/proc/sys/fs/binfmt_misc/register
    for dir in "$@"; do
      mkdir -p "$root$dir"
      mount --rbind "$dir" "$root$dir"
    done
    exec unshare --root="$root" --wd="$(dirname "$script")" -- /bin/sh "$script"
  ' binfmt-world "$root" "$script" "$qemu_line" "$@"
}
