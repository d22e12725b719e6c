#!/bin/bash
# Stand-in runner that runs the program natively and then spoils the
# result in one way, chosen by PHYBIN_SELFTEST_CORRUPT:
#   flip        one byte in the middle of stdout changed  (all tests fail)
#   append      one extra byte at the end of stdout       (all tests fail)
#   truncate    the last byte of stdout dropped            (all tests fail)
#   status      exit status 0 becomes 1, others become 0  (all tests fail)
#   signal-code death by signal N reported as exit code N (crash tests fail)
#   segv        the runner itself dies of SIGSEGV          (all tests fail)
#   model       the first `model: ` line gets an extra byte (the tests of
#               programs with a .model file fail)
# The harness runs the runner under `env -i`, so the mode reaches this
# script through a wrapper made by check_harness.sh; it is removed from the
# environment before the program runs, which must not see it.
mode="${PHYBIN_SELFTEST_CORRUPT:-flip}"
unset PHYBIN_SELFTEST_CORRUPT
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$@" > "$out"
status=$?
size=$(stat -c %s "$out")
case "$mode" in
  flip)
    if [ "$size" -gt 0 ]; then
      offset=$((size / 2))
      byte=$(od -An -tu1 -j "$offset" -N1 "$out" | tr -d ' ')
      printf "\\$(printf %03o $((byte ^ 0x20)))" | dd of="$out" bs=1 seek="$offset" conv=notrunc status=none
    else
      printf 'x' > "$out"
    fi
    ;;
  append) printf 'x' >> "$out" ;;
  truncate) [ "$size" -gt 0 ] && truncate -s $((size - 1)) "$out" || printf 'x' > "$out" ;;
  status) if [ "$status" -eq 0 ]; then status=1; else status=0; fi ;;
  signal-code) [ "$status" -gt 128 ] && status=$((status - 128)) ;;
  segv) cat "$out"; rm -f "$out"; kill -SEGV $$ ;;
  model) LC_ALL=C sed -i '0,/^model: /s/^model: .*/&x/' "$out" ;;
esac
cat "$out"
exit "$status"
