# Shared by the scripts in this folder (sourced, not run).  Keeps the few
# facts every script needs in one place: where the repository is, which
# machine we are on and where the arm64 Debian tree lives.
# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this

# Repository root, whatever directory the script was started from.
PHYBIN_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The arm64 tree that the cross build links against and qemu-aarch64 loads
# shared libraries from (x86-64 machines only).
PHYBIN_ARM64_ROOT=${PHYBIN_ARM64_ROOT:-/var/cache/phybin/arm64-root}

# A second ARM64 world with ROCm 6 (libamdhip64.so.6, from Debian's
# unstable suite: bookworm has ROCm 5.2 only), where the forwarding of a
# second soname of one library is tested.
PHYBIN_ROCM6_ROOT=${PHYBIN_ROCM6_ROOT:-/var/cache/phybin/arm64-rocm6}

# A 32-bit (i386) qemu-aarch64-static, for the binfmt_misc test on x86-64
# machines: registered there as the arm64 world's qemu, it is no x86-64
# program, so that phybin's x86-64 entry does not take it too.
PHYBIN_QEMU_I386=${PHYBIN_QEMU_I386:-/var/cache/phybin/qemu-i386/qemu-aarch64-static}

# An arm64 Debian with dpkg and binfmt-support (and the amd64 C library),
# where the Debian package is installed and removed (tests/world).
PHYBIN_PACKAGE_WORLD=${PHYBIN_PACKAGE_WORLD:-/var/cache/phybin/arm64-package-world}

# A separate amd64 Debian (minbase and the programs the acceptance tests
# run), for PHYBIN_ROOTFS: the world binds it at the same path.
PHYBIN_AMD64_ROOT=${PHYBIN_AMD64_ROOT:-/var/cache/phybin/amd64-root}

# x86_64: cross-build phybin and run it under qemu-aarch64.
# aarch64: everything native.
PHYBIN_HOST_ARCH=$(uname -m)

# Messages carry the script's name so that, inside scripts/test's long
# output, one can tell which step spoke.
phybin_script=${0##*/}

say() { printf '%s: %s\n' "$phybin_script" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$phybin_script" "$*" >&2; }
die() {
  printf '%s: error: %s\n' "$phybin_script" "$*" >&2
  exit 1
}

require_supported_arch() {
  case "$PHYBIN_HOST_ARCH" in
    x86_64 | aarch64) ;;
    *) die "unsupported machine '$PHYBIN_HOST_ARCH' (phybin builds on x86_64 and aarch64)" ;;
  esac
}

# as_root CMD...: runs CMD as root (sudo when this is not root).
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo --preserve-env -- "$@"; fi
}
