#!/bin/bash
# Stand-in for phybin when checking the test harness: refuses bad inputs
# the way phybin documents (message "phybin: error 0xNNNN (NAME): ..." on
# stderr, exit status 0x70 + (code & 0xF)), using binutils to inspect the
# file, and runs every acceptable program natively.  Not a model of
# phybin's checks, only of its interface: all badinput tests pass with it.
# PHYBIN_SELFTEST_FAKE_MODE spoils the refusals, to see the tests fail:
#   no-code    the message lacks the hex code    (all badinput tests fail)
#   exit1      exit status 1 instead of 0x7N     (all badinput tests fail)
#   no-detail  no extension or instruction text  (avx2_instruction fails)
# (set by a wrapper from check_harness.sh and hidden from the program).
mode="${PHYBIN_SELFTEST_FAKE_MODE:-}"
unset PHYBIN_SELFTEST_FAKE_MODE
fail() {  # code name message
  case "$mode" in
    no-code) echo "phybin: error ($2): $3" >&2 ;;
    no-detail) echo "phybin: error $1 ($2): cannot open, load or translate the program" >&2 ;;
    *) echo "phybin: error $1 ($2): $3" >&2 ;;
  esac
  [ "$mode" = exit1 ] && exit 1
  exit $((0x70 + ($1 & 0xF)))
}

file="${1:-}"
[ -n "$file" ] || fail 0x1000 PHYBIN_ERR_USAGE "usage: phybin PROGRAM [ARGS]"
{ [ -f "$file" ] && [ -r "$file" ]; } || fail 0x1007 PHYBIN_ERR_FILE_ACCESS "cannot open $file"
[ "$(head -c 4 "$file" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
  fail 0x1001 PHYBIN_ERR_NOT_X86_64_ELF "$file is not an ELF file"
class=$(od -An -tu1 -j 4 -N1 "$file" | tr -d ' ')
machine=$(od -An -tu2 -j 18 -N2 "$file" | tr -d ' ')
{ [ "$class" = 2 ] && [ "$machine" = 62 ]; } ||
  fail 0x1001 PHYBIN_ERR_NOT_X86_64_ELF "$file is not a 64-bit x86-64 ELF file"
size=$(stat -c %s "$file")
headers="$(LC_ALL=C readelf -lW "$file" 2>&1)"
if [ "$size" -lt 64 ] || grep -qi 'error\|warning' <<<"$headers"; then
  fail 0x1008 PHYBIN_ERR_BAD_ELF "$file: ELF headers are truncated or corrupted"
fi
# Every LOAD segment's file range must lie inside the file.
while read -r type offset _ _ filesz _; do
  if [ "$type" = LOAD ] && ((offset + filesz > size)); then
    fail 0x1008 PHYBIN_ERR_BAD_ELF "$file: a segment extends past the end of the file"
  fi
done <<<"$headers"
interp="$(readelf -p .interp "$file" 2>/dev/null | sed -n 's/^ *\[ *0\] *//p')"
[ -n "$interp" ] && [ ! -e "$interp" ] &&
  fail 0x1002 PHYBIN_ERR_NO_INTERPRETER "$file needs the interpreter $interp, which is not there (libc6:amd64)"
avx2="$(objdump -d --no-show-raw-insn --disassemble=main "$file" 2>/dev/null | grep -m1 'vpaddd.*%ymm')"
[ -n "$avx2" ] && fail 0x1003 PHYBIN_ERR_ILLEGAL_INSTR "cannot translate '$(sed 's/^ *//' <<<"$avx2")' (AVX2) in main"
exec "$@"
