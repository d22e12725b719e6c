#!/bin/bash
# Saved translations (PHYBIN_CACHE_DIR) never run stale code, and writers
# never collide:
#  - a static program, then a shared library of a dynamic one, rewritten in
#    place at the same size with the mtime put back (`cat new > file;
#    touch -r`) must run their new code on a warm cache: the key holds the
#    files' ctime, which no one can put back;
#  - 16 runs in PID namespaces of their own (all PID 1) saving to one
#    directory at once: every save lands or is skipped with a reason, none
#    fails to write (a temporary name per process ID collided there).
#
# usage: run_cache_rewrite_test.sh RUNNER RUNNER_DYNAMIC CC
# (scripts/phybin, scripts/phybin-world, an x86-64 C compiler).  Needs root
# for the world and the PID namespaces; exits 77 (skipped) otherwise.
set -u
runner=$1 runner_dyn=$2 cc=$3
((EUID == 0)) || { echo "SKIP: needs root (scripts/phybin-world, unshare --pid)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/phybin-rewrite.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
problem() {
  echo "FAIL: $*"
  fail=1
}

# The code differs in an immediate only: same size, different behaviour.
cat >"$work/version.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) static int version(void) { return VERSION * 3 + 1; }
int main(void) { printf("version %d\n", version()); return 0; }
C
cat >"$work/libversion.c" <<'C'
int version(void) { return VERSION * 3 + 1; }
C
cat >"$work/uses_lib.c" <<'C'
#include <stdio.h>
int version(void);
int main(void) { printf("library version %d\n", version()); return 0; }
C
for v in 1 2; do
  if ! "$cc" -O2 -static -DVERSION=$v -o "$work/static_v$v" "$work/version.c" ||
    ! "$cc" -O2 -shared -fPIC -DVERSION=$v -o "$work/libversion_v$v.so" "$work/libversion.c"; then
    echo "FAIL: cannot build the test programs"
    exit 1
  fi
done
"$cc" -O2 -o "$work/uses_lib" "$work/uses_lib.c" "$work/libversion_v1.so" -Wl,-rpath,"$work" ||
  { echo "FAIL: cannot build uses_lib"; exit 1; }

# run NAME RUNNER PROG: PROG under phybin with the test's cache, at log level 2.
run() {
  local name=$1
  shift
  (cd "$work" && env -i PATH=/usr/bin:/bin LANG=C HOME="$work" PHYBIN_CACHE_DIR="$work/cache" PHYBIN_LOG_LEVEL=2 \
    "$@") >"$work/$name.out" 2>"$work/$name.err"
}
# rewrite FILE NEW: FILE's bytes replaced by NEW's in place, its mtime put back.
rewrite() {
  touch -r "$1" "$work/mtime"
  cat "$2" >"$1"
  touch -r "$work/mtime" "$1"
}
# expect NAME TEXT [loaded]: the run printed TEXT (and loaded saved translations).
expect() {
  grep -qxF "$2" "$work/$1.out" || problem "$1: printed '$(cat "$work/$1.out")', want '$2'; $(tail -3 "$work/$1.err")"
  [[ ${3:-} != loaded ]] || grep -q "^phybin: loaded [1-9][0-9]* blocks" "$work/$1.err" ||
    problem "$1: no saved translations were loaded: $(grep '^phybin: .*\(saved\|loaded\)' "$work/$1.err")"
}

# The program itself rewritten.
cp "$work/static_v1" "$work/prog"
[[ $(stat -c %s "$work/static_v1") == $(stat -c %s "$work/static_v2") ]] || problem "the two versions differ in size"
run cold "$runner" ./prog && expect cold "version 4"
run warm "$runner" ./prog && expect warm "version 4" loaded
before=$(stat -c '%s %Y' "$work/prog")
rewrite "$work/prog" "$work/static_v2"
[[ $(stat -c '%s %Y' "$work/prog") == "$before" ]] || problem "rewrite changed size or mtime"
run rewritten "$runner" ./prog
expect rewritten "version 7"

# A library of a dynamic program rewritten (it has no soname: the program
# names it by the path it was linked with).
run lib_cold "$runner_dyn" "$work/uses_lib" && expect lib_cold "library version 4"
run lib_warm "$runner_dyn" "$work/uses_lib" && expect lib_warm "library version 4" loaded
rewrite "$work/libversion_v1.so" "$work/libversion_v2.so"
run lib_rewritten "$runner_dyn" "$work/uses_lib"
expect lib_rewritten "library version 7" loaded

# 16 writers at once, each PID 1 in its own PID namespace.
rm -rf "$work/cache"
for i in $(seq 16); do
  (cd "$work" && env -i PATH=/usr/bin:/bin LANG=C HOME="$work" PHYBIN_CACHE_DIR="$work/cache" PHYBIN_LOG_LEVEL=2 \
    unshare --pid --fork "$runner" ./prog >"$work/writer$i.out" 2>"$work/writer$i.err") &
done
wait
for i in $(seq 16); do
  expect "writer$i" "version 7"
  grep -q "cannot write" "$work/writer$i.err" && problem "writer $i: $(grep 'cannot write' "$work/writer$i.err")"
  grep -qE "^phybin: (saved [0-9]+ blocks|translations not saved)" "$work/writer$i.err" ||
    problem "writer $i neither saved nor said why not: $(tail -3 "$work/writer$i.err")"
done
leftovers=$(find "$work/cache" -name '*.tmp.*' | wc -l)
((leftovers == 0)) || problem "$leftovers temporary files left in the cache directory"

((fail)) && exit 1
echo "PASS: rewritten program and library ran their new code on a warm cache; 16 writers in PID namespaces all saved"
