// System V IPC (shared memory, semaphores, message queues) and POSIX
// message queues.  The calls
// are the host's; what differs for the guest is where an attached segment
// lands (below x86-64's user-space limit, SHM_RND to x86-64's 4 KiB
// SHMLBA, where AArch64's is 16 KiB), that the guest's mappings must know
// of it (code fetch, /proc/self/maps, translations to drop at shmdt), and
// x86-64's struct semid64_ds, which has a padding word after each time
// (AArch64's has none).  shmid64_ds and msqid64_ds are the same on both.
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include <cstdio>
#include <cstring>

#include "common/guest_address.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

constexpr uint64_t kX86Shmlba = 4096;
constexpr int kX86ShmRdonly = 010000, kX86ShmRnd = 020000, kX86ShmExec = 0100000;

// struct ipc64_perm, the same on both.
struct Ipc64Perm {
  int32_t key;
  uint32_t uid, gid, cuid, cgid, mode;
  uint16_t seq, pad;
  uint64_t unused1, unused2;
};
struct X86SemidDs {
  Ipc64Perm perm;
  int64_t otime;
  uint64_t otime_high;
  int64_t ctime;
  uint64_t ctime_high;
  uint64_t nsems, unused3, unused4;
};
struct HostSemidDs {
  Ipc64Perm perm;
  int64_t otime, ctime;
  uint64_t nsems, unused3, unused4;
};
static_assert(sizeof(X86SemidDs) == 104 && sizeof(HostSemidDs) == 88);

// The kernel's command numbers (IPC_64 is implied on 64-bit).
constexpr int kIpcStat = 2, kIpcSet = 1, kSemStat = 18, kSemStatAny = 20;

// Where Linux shows a System V segment with key `key`: "/SYSV<key>
// (deleted)", with the kernel's device and inode of the mapping.
AddressSpace::Source segment_source(key_t key, uint64_t address) {
  AddressSpace::Source source;
  char name[32];
  std::snprintf(name, sizeof name, "/SYSV%08x (deleted)", static_cast<unsigned>(key));
  source.name = name;
  source.shared = true;
  host_mapping_identity(address, source);
  return source;
}

int64_t sys_shmat(const SyscallArgs& s) {
  const int id = static_cast<int>(s.a[0]);
  uint64_t address = s.a[1];
  int flags = static_cast<int>(s.a[2]);
  if (flags & kX86ShmRnd) {
    address &= ~(kX86Shmlba - 1);
    flags &= ~kX86ShmRnd;
  }
  struct shmid_ds ds {};  // its size, and its key for /proc/self/maps
  if (const int64_t r = host_syscall(SYS_shmctl, id, IPC_STAT, &ds); r < 0) return r;
  const uint64_t length = (static_cast<uint64_t>(ds.shm_segsz) + process().page_size - 1) & ~(process().page_size - 1);
  int64_t r;
  if (address == 0) {
    // The host may place it above 2^47: a place below, reserved, then taken.
    bool too_high = false;
    void* slot = map_below_guest_limit(length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, &too_high);
    if (slot == MAP_FAILED || too_high) {
      if (slot != MAP_FAILED) host_syscall(SYS_munmap, slot, length);
      return -ENOMEM;
    }
    r = host_syscall(SYS_shmat, id, slot, flags | SHM_REMAP);
    if (r < 0) host_syscall(SYS_munmap, slot, length);
  } else {
    if (address > kGuestAddressLimit || length > kGuestAddressLimit - address) return -EINVAL;
    r = host_syscall(SYS_shmat, id, address, flags);
  }
  if (r < 0) return r;
  const int prot = PROT_READ | ((flags & kX86ShmRdonly) ? 0 : PROT_WRITE) | ((flags & kX86ShmExec) ? PROT_EXEC : 0);
  process().address_space.map(static_cast<uint64_t>(r), length, prot,
                              segment_source(ds.shm_perm.__key, static_cast<uint64_t>(r)));
  invalidate_guest_code(static_cast<uint64_t>(r), length);
  return r;
}

int64_t sys_shmdt(const SyscallArgs& s) {
  const CodeReadersHeld held;
  const auto range = process().address_space.find(s.a[0]);
  const int64_t r = host_syscall(SYS_shmdt, s.a[0]);
  if (r == 0 && range) {
    process().address_space.unmap(range->start, range->end - range->start);
    invalidate_guest_code(range->start, range->end - range->start);
  }
  return r;
}

// semctl(id, num, cmd, arg): arg is a union passed by value, a pointer for
// the commands that take a struct.
int64_t sys_semctl(const SyscallArgs& s) {
  const int cmd = static_cast<int>(s.a[2]) & 0xff;
  if (cmd != kIpcStat && cmd != kIpcSet && cmd != kSemStat && cmd != kSemStatAny)
    return host_syscall(SYS_semctl, s.a[0], s.a[1], s.a[2], s.a[3]);
  auto* guest = reinterpret_cast<X86SemidDs*>(s.a[3]);
  HostSemidDs host{};
  if (cmd == kIpcSet) {
    host.perm = guest->perm;
    host.otime = guest->otime;
    host.ctime = guest->ctime;
    host.nsems = guest->nsems;
  }
  const int64_t r = host_syscall(SYS_semctl, s.a[0], s.a[1], s.a[2], &host);
  if (r >= 0 && cmd != kIpcSet) {
    X86SemidDs out{};
    out.perm = host.perm;
    out.otime = host.otime;
    out.ctime = host.ctime;
    out.nsems = host.nsems;
    std::memcpy(guest, &out, sizeof out);
  }
  return r;
}

}  // namespace

void register_ipc_syscalls(SyscallTable& t) {
  t.pass(X86_NR_shmget, SYS_shmget);
  t.add(X86_NR_shmat, sys_shmat);
  t.add(X86_NR_shmdt, sys_shmdt);
  t.pass(X86_NR_shmctl, SYS_shmctl);
  t.pass(X86_NR_semget, SYS_semget);
  t.pass(X86_NR_semop, SYS_semop);
  t.pass(X86_NR_semtimedop, SYS_semtimedop);
  t.add(X86_NR_semctl, sys_semctl);
  t.pass(X86_NR_msgget, SYS_msgget);
  t.pass(X86_NR_msgsnd, SYS_msgsnd);
  t.pass(X86_NR_msgrcv, SYS_msgrcv);
  t.pass(X86_NR_msgctl, SYS_msgctl);
  // POSIX message queues: names live in the kernel's mqueue file system,
  // not in the x86-64 root; struct mq_attr and struct sigevent have one
  // layout on both.
  t.pass(X86_NR_mq_open, SYS_mq_open);
  t.pass(X86_NR_mq_unlink, SYS_mq_unlink);
  t.pass(X86_NR_mq_timedsend, SYS_mq_timedsend);
  t.pass(X86_NR_mq_timedreceive, SYS_mq_timedreceive);
  t.pass(X86_NR_mq_notify, SYS_mq_notify);
  t.pass(X86_NR_mq_getsetattr, SYS_mq_getsetattr);
}

}  // namespace phybin::sys
