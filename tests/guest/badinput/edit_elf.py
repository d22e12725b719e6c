#!/usr/bin/env python3
"""Derives from a good x86-64 ELF file one that Linux runs although it is
unusual, for the bad-input tests that must run (see make_bad_input.sh).

  edit_elf.py ident IN OUT            EI_VERSION 0, EI_OSABI FreeBSD, EI_ABIVERSION 5,
                                      e_version 7: bytes Linux does not look at
  edit_elf.py swap-loads IN OUT       the first two PT_LOAD headers swapped
  edit_elf.py overlap-loads IN OUT    the first PT_LOAD reaching 0x100 bytes into
                                      the second, whose pages are mapped over it
  edit_elf.py tls-beyond IN OUT       PT_TLS's p_offset past the end of the file
  edit_elf.py ro-tail SECTION IN OUT  p_filesz of the read-only PT_LOAD holding
                                      SECTION cut where SECTION starts, p_memsz
                                      kept: the section is in the tail of the
                                      segment's last file page
"""
import os
import struct
import sys

PHDR = struct.Struct("<IIQQQQQQ")  # p_type p_flags p_offset p_vaddr p_paddr p_filesz p_memsz p_align
PT_LOAD, PT_TLS, PF_W = 1, 7, 2


def phdrs(data):
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    return [(phoff + i * phentsize, list(PHDR.unpack_from(data, phoff + i * phentsize))) for i in range(phnum)]


def loads(data):
    return [(at, ph) for at, ph in phdrs(data) if ph[0] == PT_LOAD]


def section_offset(data, name):
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    header = lambda i: struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    names = header(shstrndx)[4]
    for i in range(shnum):
        sh = header(i)
        if data[names + sh[0]:].split(b"\0", 1)[0].decode() == name:
            return sh[4]
    sys.exit(f"edit_elf.py: no section {name}")


def ident(data):
    data[6], data[7], data[8] = 0, 9, 5
    struct.pack_into("<I", data, 20, 7)


def swap_loads(data):
    (a, first), (b, second) = loads(data)[:2]
    PHDR.pack_into(data, a, *second)
    PHDR.pack_into(data, b, *first)


def overlap_loads(data):
    (a, first), (_, second) = loads(data)[:2]
    first[5] = first[6] = second[3] + 0x100 - first[3]
    PHDR.pack_into(data, a, *first)


def tls_beyond(data):
    for at, ph in phdrs(data):
        if ph[0] == PT_TLS:
            ph[2] = len(data) + 0x100000
            PHDR.pack_into(data, at, *ph)
            return
    sys.exit("edit_elf.py: no PT_TLS")


def ro_tail(data, section):
    cut = section_offset(data, section)
    for at, ph in loads(data):
        if ph[2] <= cut < ph[2] + ph[5]:
            if ph[1] & PF_W or (ph[2] + ph[6] - 1) // 4096 != cut // 4096:
                sys.exit(f"edit_elf.py: {section} is not in the last page of a read-only segment")
            ph[5] = cut - ph[2]
            PHDR.pack_into(data, at, *ph)
            return
    sys.exit(f"edit_elf.py: {section} is in no PT_LOAD")


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    data = bytearray(open(args[-2], "rb").read())
    edits = {"ident": ident, "swap-loads": swap_loads, "overlap-loads": overlap_loads, "tls-beyond": tls_beyond}
    if mode == "ro-tail":
        ro_tail(data, args[0])
    else:
        edits[mode](data)
    with open(args[-1] + ".tmp", "wb") as out:
        out.write(data)
    os.chmod(args[-1] + ".tmp", 0o755)
    os.replace(args[-1] + ".tmp", args[-1])


main()
