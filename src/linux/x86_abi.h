// The x86-64 Linux kernel ABI as a guest program sees it: system call
// numbers, the structs whose layout differs from AArch64's, and the flag
// values that differ.  Everything here is written out explicitly (not taken
// from host headers) so that the same definitions hold on any host.
#pragma once

#include <cstddef>
#include <cstdint>

namespace phybin::sys {

// x86-64 system call numbers: X86_NR_read == 0, ...
enum X86Nr : uint32_t {
#define X(name, number) X86_NR_##name = number,
#include "linux/x86_syscalls.inc"
#undef X
};

// Largest x86-64 system call number the name table knows.
constexpr uint32_t kX86MaxSyscall = 467;

// struct stat of arch/x86/include/uapi/asm/stat.h (64-bit): st_nlink comes
// before st_mode and is 64 bits wide; 144 bytes in all.
struct X86Stat {
  uint64_t st_dev;
  uint64_t st_ino;
  uint64_t st_nlink;
  uint32_t st_mode;
  uint32_t st_uid;
  uint32_t st_gid;
  uint32_t pad0;
  uint64_t st_rdev;
  int64_t st_size;
  int64_t st_blksize;
  int64_t st_blocks;
  uint64_t st_atime_sec;
  uint64_t st_atime_nsec;
  uint64_t st_mtime_sec;
  uint64_t st_mtime_nsec;
  uint64_t st_ctime_sec;
  uint64_t st_ctime_nsec;
  int64_t unused[3];
};
static_assert(sizeof(X86Stat) == 144);
static_assert(offsetof(X86Stat, st_nlink) == 16);
static_assert(offsetof(X86Stat, st_mode) == 24);
static_assert(offsetof(X86Stat, st_rdev) == 40);
static_assert(offsetof(X86Stat, st_size) == 48);
static_assert(offsetof(X86Stat, st_blksize) == 56);
static_assert(offsetof(X86Stat, st_blocks) == 64);
static_assert(offsetof(X86Stat, st_atime_sec) == 72);
static_assert(offsetof(X86Stat, st_mtime_sec) == 88);
static_assert(offsetof(X86Stat, st_ctime_sec) == 104);

// struct epoll_event is packed on x86-64 (12 bytes); AArch64 pads it to 16.
struct __attribute__((packed)) X86EpollEvent {
  uint32_t events;
  uint64_t data;
};
static_assert(sizeof(X86EpollEvent) == 12);
static_assert(offsetof(X86EpollEvent, data) == 4);

// The kernel's struct sigaction for rt_sigaction (not glibc's): handler,
// flags, restorer, 64-bit mask.  AArch64 has the same layout, but a
// restorer there is never a guest address.
struct X86KernelSigaction {
  uint64_t handler;
  uint64_t flags;
  uint64_t restorer;
  uint64_t mask;
};
static_assert(sizeof(X86KernelSigaction) == 32);

constexpr uint64_t kX86SigDfl = 0;
constexpr uint64_t kX86SigIgn = 1;
constexpr uint64_t kX86SaRestorer = 0x04000000;
constexpr int kX86NumSignals = 64;
constexpr uint64_t kX86SigsetSize = 8;

// stack_t for sigaltstack.
struct X86StackT {
  uint64_t ss_sp;
  int32_t ss_flags;
  int32_t pad;
  uint64_t ss_size;
};
static_assert(sizeof(X86StackT) == 24);
constexpr int32_t kX86SsOnstack = 1;
constexpr int32_t kX86SsDisable = 2;
constexpr int32_t kX86SsAutodisarm = int32_t(1u << 31);
constexpr uint64_t kX86MinSigStkSz = 2048;

// The old getdents' record (struct linux_dirent): d_ino, d_off, d_reclen,
// the name from offset 18, a NUL, and d_type in the record's last byte.
// linux_dirent64 (the same on every architecture) keeps d_type at offset
// 18 and the name from 19.
constexpr size_t kX86DirentNameOffset = 18;
constexpr size_t kDirent64NameOffset = 19;
constexpr size_t kDirent64TypeOffset = 18;

// struct new_utsname: six 65-byte strings.
struct X86Utsname {
  char sysname[65];
  char nodename[65];
  char release[65];
  char version[65];
  char machine[65];
  char domainname[65];
};
static_assert(sizeof(X86Utsname) == 390);

// The open() flags whose values differ between x86-64 and AArch64 (all other
// O_* bits are the same on both).
struct OpenFlagLayout {
  uint32_t direct;
  uint32_t largefile;
  uint32_t directory;
  uint32_t nofollow;
};
constexpr OpenFlagLayout kX86OpenFlags{040000, 0100000, 0200000, 0400000};
constexpr OpenFlagLayout kArm64OpenFlags{0200000, 0400000, 040000, 0100000};

// fcntl commands whose argument or result holds open flags.
constexpr uint64_t kX86FGetfl = 3;
constexpr uint64_t kX86FSetfl = 4;

// mmap(): x86-64's MAP_32BIT; prot bits x86-64 knows (AArch64 gives 0x10
// and 0x20 the meanings PROT_BTI and PROT_MTE).
constexpr uint64_t kX86Map32Bit = 0x40;
constexpr uint64_t kX86ProtKnown = 0x1 | 0x2 | 0x4 | 0x8 | 0x01000000 | 0x02000000;
constexpr uint64_t kAarch64OnlyProt = 0x10 | 0x20;
// MAP_32BIT places mappings in [1 GiB, 2 GiB) like the x86-64 kernel does.
constexpr uint64_t kX86Map32BitLow = 0x40000000;
constexpr uint64_t kX86Map32BitHigh = 0x80000000;

// arch_prctl codes.
constexpr uint64_t kX86ArchSetGs = 0x1001;
constexpr uint64_t kX86ArchSetFs = 0x1002;
constexpr uint64_t kX86ArchGetFs = 0x1003;
constexpr uint64_t kX86ArchGetGs = 0x1004;

// set_robust_list: sizeof(struct robust_list_head) on 64-bit.
constexpr uint64_t kRobustListHeadSize = 24;

}  // namespace phybin::sys
