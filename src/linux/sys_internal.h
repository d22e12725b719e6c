// Shared plumbing of the Linux layer's .cpp files: the dispatch table,
// host system calls that answer -errno, and guest-pointer helpers.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_set>

#include "linux/syscalls.h"

namespace phybin::sys {

struct SyscallArgs {
  GuestState& st;
  uint64_t a[6];  // RDI, RSI, RDX, R10, R8, R9
  long host_nr;   // the host's number, for entries added with pass()
  // The runtime's "guest signal pending" flag (see handle_syscall).
  const volatile sig_atomic_t* interrupt = nullptr;
};

// Returns the value for RAX: a result, or -errno.
using SyscallHandler = int64_t (*)(const SyscallArgs&);

// Which arguments of a call are file names (up to two) and whether the
// last component's symbolic link is followed, so that handle_syscall can
// send absolute names to the x86-64 root (GuestRoot) before the handler
// runs.  A name relative to a directory is left as it is.
struct PathArgs {
  enum class Follow : uint8_t {
    Yes,
    No,
    AtFlag,     // unless AT_SYMLINK_NOFOLLOW is in argument flags_arg
    OpenFlags,  // unless x86's O_NOFOLLOW or O_CREAT|O_EXCL is in argument flags_arg
  };
  int8_t arg[2] = {-1, -1};
  Follow follow = Follow::Yes;
  int8_t flags_arg = -1;
};

class SyscallTable {
 public:
  struct Entry {
    SyscallHandler fn = nullptr;
    long host_nr = -1;
    PathArgs paths;
  };
  // x86_nr is handled by fn.
  void add(uint32_t x86_nr, SyscallHandler fn);
  // x86_nr is the host's call host_nr with the same six arguments.
  void pass(uint32_t x86_nr, long host_nr);
  // x86_nr's file-name arguments.
  void names(uint32_t x86_nr, PathArgs paths);
  // nullptr when the call is not supported.
  const Entry* find(uint64_t x86_nr) const;

 private:
  Entry entries_[kX86MaxSyscall + 1];
};

// Each sys_*.cpp file fills in its part of the table.
void register_file_syscalls(SyscallTable& table);
void register_path_syscalls(SyscallTable& table);
void register_event_syscalls(SyscallTable& table);
void register_memory_syscalls(SyscallTable& table);
void register_process_syscalls(SyscallTable& table);
void register_signal_syscalls(SyscallTable& table);
void register_exec_syscalls(SyscallTable& table);
void register_net_syscalls(SyscallTable& table);
void register_ipc_syscalls(SyscallTable& table);
// open of /proc/self/maps, /proc/self/auxv or /proc/cpuinfo: a descriptor
// of a memory file with the guest's view (or -errno); nothing for any other
// path (proc_files.cpp).
std::optional<int64_t> open_emulated_proc_file(const char* path, uint64_t guest_flags);

// The file-name arguments of every call that has them (after the above).
void register_path_names(SyscallTable& table);

// Converts one argument for libc's variadic syscall(): everything travels
// as a long.
template <typename T>
long syscall_arg(T value) {
  if constexpr (std::is_null_pointer_v<T>) {
    return 0;
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<long>(value);
  } else {
    return static_cast<long>(value);
  }
}

inline int64_t host_result(long result) { return result == -1 ? -int64_t{errno} : result; }

// The host's system call `nr`; -errno on failure, like the kernel answers.
template <typename... Args>
int64_t host_syscall(long nr, Args... args) {
  return host_result(::syscall(nr, syscall_arg(args)...));
}

// The host call that carries out the guest's call (its one blocking host
// call): it does not start while a guest signal is pending, and a signal
// that arrives before it starts makes it answer kSyscallNotStarted
// (safe_syscall.cpp).
int64_t interruptible_syscall6(const SyscallArgs& s, long nr, long a0, long a1, long a2, long a3, long a4, long a5);
template <typename... Args>
int64_t interruptible_syscall(const SyscallArgs& s, long nr, Args... args) {
  static_assert(sizeof...(Args) <= 6);
  long a[6] = {syscall_arg(args)...};
  return interruptible_syscall6(s, nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

inline int64_t pass_through(const SyscallArgs& s) {
  return interruptible_syscall(s, s.host_nr, s.a[0], s.a[1], s.a[2], s.a[3], s.a[4], s.a[5]);
}

template <typename T>
T* guest_ptr(uint64_t address) {
  return reinterpret_cast<T*>(address);
}

// Where phybin itself reads or writes a guest struct (instead of the host
// kernel), a bad pointer would fault in phybin rather than give EFAULT.
// Addresses in the first page are never mapped: catch the common null case.
inline bool unmapped_guest_ptr(uint64_t address) { return address < 4096; }

// Remembers keys already seen, for messages logged once.
class OnceSet {
 public:
  // True the first time `key` is seen.
  bool first(uint64_t key) {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_.insert(key).second;
  }

 private:
  std::mutex mutex_;
  std::unordered_set<uint64_t> seen_;
};

// "/proc/self/LEAF", "/proc/thread-self/LEAF", "/proc/<our pid or tid>/LEAF".
bool names_own_proc_file(const char* path, const char* leaf);
// Paths the guest uses to name its own executable: names_own_proc_file
// with "exe".
bool names_own_exe(const char* path);

// Path the host should open for a guest path that follows symlinks: the
// guest executable for names_own_exe() paths, else `path` itself.
const char* host_path_following_links(const char* path);

// Starts the guest's signal dispositions from the host's (an ignored
// signal stays ignored across exec, as for a native program).
void init_guest_signals(ProcessInfo& info);

// Tells the runtime that guest memory [start, start + length) changed.
void invalidate_guest_code(uint64_t start, uint64_t length);
// ProcessConfig::hold_code_readers for a scope: around the host call that
// changes guest memory and the records of it.
class CodeReadersHeld {
 public:
  CodeReadersHeld();
  ~CodeReadersHeld();
  CodeReadersHeld(const CodeReadersHeld&) = delete;
  CodeReadersHeld& operator=(const CodeReadersHeld&) = delete;
};

// Shared memory is a file of the kernel's own (shared anonymous memory,
// System V segments): its device and inode, as the host's /proc/self/maps
// gives them for the mapping at `start` (sys_memory.cpp).
void host_mapping_identity(uint64_t start, MappingSource& source);

}  // namespace phybin::sys
