#!/bin/bash
# A forked child leaves saving its parent's translations to the parent: a
# program whose 8 children exit without running new code writes its
# translations once (the parent, at its exit), not once per child; a child
# that translates enough new code of its own saves too (as a warm run with
# that many new blocks would).
#
# usage: run_cache_fork_test.sh RUNNER CC  (scripts/phybin, an x86-64 C compiler)
set -u
runner=$1 cc=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/phybin-cache-fork.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# Child 0 runs 512 functions nobody ran before the fork; the others exit.
{
  echo '#include <stdio.h>'
  echo '#include <sys/wait.h>'
  echo '#include <unistd.h>'
  for i in $(seq 0 511); do
    echo "__attribute__((noinline)) static unsigned f$i(unsigned x) { return x * $((i * 2 + 3)) + $i; }"
  done
  echo 'static unsigned (*const fns[])(unsigned) = {'
  for i in $(seq 0 511); do echo "  f$i,"; done
  echo '};'
  cat <<'C'
int main(int argc, char **argv) {
  (void)argv;
  for (int c = 0; c < 8; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      unsigned x = (unsigned)argc;
      if (c == 0)
        for (unsigned i = 0; i < sizeof fns / sizeof fns[0]; ++i) x = fns[i](x);
      _exit((int)(x & 0x7f));
    }
    int status;
    waitpid(pid, &status, 0);
    printf("child %d: %d\n", c, WEXITSTATUS(status));
  }
  return 0;
}
C
} >"$work/forks.c"
"$cc" -O2 -static -o "$work/forks" "$work/forks.c" || { echo "FAIL: cannot build the test program"; exit 1; }

"$work/forks" >"$work/native.out"
(cd "$work" && env -i PATH=/usr/bin:/bin LANG=C HOME="$work" PHYBIN_CACHE_DIR="$work/cache" PHYBIN_LOG_LEVEL=2 \
  "$runner" ./forks) >"$work/phybin.out" 2>"$work/phybin.err"
status=$?
fail=0
((status == 0)) || { echo "FAIL: phybin exited with $status: $(tail -3 "$work/phybin.err")"; fail=1; }
cmp -s "$work/native.out" "$work/phybin.out" || { echo "FAIL: output differs:"; diff "$work/native.out" "$work/phybin.out"; fail=1; }
saves=$(grep -c "^phybin: saved [0-9]* blocks" "$work/phybin.err")
if ((saves != 2)); then
  echo "FAIL: $saves saves, want 2 (the parent and the child that ran new code):"
  grep "^phybin: .*saved" "$work/phybin.err"
  fail=1
fi
((fail)) && exit 1
echo "PASS: 8 forked children, 2 saves (the parent, the child with 512 new functions)"
