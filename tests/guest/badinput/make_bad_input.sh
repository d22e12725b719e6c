#!/bin/sh
# Derives a damaged ELF file from a good one, for the bad-input tests.
#   make_bad_input.sh class32 IN OUT       EI_CLASS (byte 4) set to ELFCLASS32
#   make_bad_input.sh truncate N IN OUT    only the first N bytes of IN
#   make_bad_input.sh phoff-beyond IN OUT  e_phoff (bytes 32..39) pointing
#                                          far past the end of the file
#   make_bad_input.sh big-endian IN OUT    EI_DATA (byte 5) set to ELFDATA2MSB
#   make_bad_input.sh fifo OUT             a named pipe (nobody ever writes it)
#   make_bad_input.sh interp PATH IN OUT   the PT_INTERP string of IN (the
#                                          standard x86-64 one) replaced by
#                                          PATH, of the same length
set -eu
mode="$1"
shift
case "$mode" in
  class32)
    cp "$1" "$2.tmp"
    printf '\001' | dd of="$2.tmp" bs=1 seek=4 conv=notrunc status=none
    ;;
  truncate)
    head -c "$1" "$2" > "$3.tmp"
    shift
    ;;
  phoff-beyond)
    cp "$1" "$2.tmp"
    # 0x7fff0000, little-endian, 8 bytes: about 2 GB, beyond any test file.
    printf '\000\000\377\177\000\000\000\000' | dd of="$2.tmp" bs=1 seek=32 conv=notrunc status=none
    ;;
  big-endian)
    cp "$1" "$2.tmp"
    printf '\002' | dd of="$2.tmp" bs=1 seek=5 conv=notrunc status=none
    ;;
  interp)
    old=/lib64/ld-linux-x86-64.so.2
    [ "${#1}" -eq "${#old}" ] || { echo "make_bad_input.sh: $1 is not ${#old} bytes long" >&2; exit 2; }
    at=$(LC_ALL=C grep -obUa "$old" "$2" | head -n1 | cut -d: -f1)
    [ -n "$at" ] || { echo "make_bad_input.sh: $2 does not name $old" >&2; exit 2; }
    cp "$2" "$3.tmp"
    printf '%s' "$1" | dd of="$3.tmp" bs=1 seek="$at" conv=notrunc status=none
    shift
    ;;
  fifo)
    rm -f "$1"
    mkfifo "$1"
    exit 0
    ;;
  *)
    echo "make_bad_input.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
chmod +x "$2.tmp"
mv "$2.tmp" "$2"
