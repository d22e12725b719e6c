// Dispatch of guest system calls, the x86-64 name table, the warning for
// unsupported calls and the process state.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

ProcessInfo g_process;

struct NamedSyscall {
  const char* name;
  uint32_t number;
};

constexpr NamedSyscall kX86SyscallNames[] = {
#define X(name, number) {#name, number},
#include "linux/x86_syscalls.inc"
#undef X
};

const SyscallTable& syscall_table() {
  // Built once, on first use; thread-safe by the rules of local statics.
  static const SyscallTable table = [] {
    SyscallTable t;
    register_file_syscalls(t);
    register_path_syscalls(t);
    register_event_syscalls(t);
    register_memory_syscalls(t);
    register_process_syscalls(t);
    register_signal_syscalls(t);
    register_exec_syscalls(t);
    register_net_syscalls(t);
    register_ipc_syscalls(t);
    register_path_names(t);
    return t;
  }();
  return table;
}

void warn_unsupported(uint32_t number) {
  static OnceSet warned;
  if (!log_enabled(LogLevel::Warn) || !warned.first(number)) return;
  const char* name = x86_syscall_name(number);
  const ErrorCode code = ErrorCode::PHYBIN_ERR_UNKNOWN_SYSCALL;
  logf(LogLevel::Warn,
       "phybin: warning 0x%04X (%s): system call %s (%" PRIu32
       ") is not supported, returning ENOSYS",
       static_cast<unsigned>(code), error_name(code), name ? name : "unknown", number);
}

void trace_syscall(uint32_t number, const SyscallArgs& s, int64_t result) {
  const char* name = x86_syscall_name(number);
  logf(LogLevel::Debug,
       "syscall %s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64
       ", 0x%" PRIx64 ") = %" PRId64,
       name ? name : "unknown", s.a[0], s.a[1], s.a[2], s.a[3], s.a[4], s.a[5], result);
}

// A component of "/proc/" + component + "/...": "self", "thread-self" or
// our pid or tid (host and guest share them).
bool proc_component_is_us(const char* begin, size_t length) {
  const std::string component(begin, length);
  if (component == "self" || component == "thread-self") return true;
  char own[32];
  std::snprintf(own, sizeof own, "%ld", static_cast<long>(getpid()));
  if (component == own) return true;
  std::snprintf(own, sizeof own, "%ld", static_cast<long>(gettid()));
  return component == own;
}

bool follows_last_link(const PathArgs& p, const SyscallArgs& s) {
  switch (p.follow) {
    case PathArgs::Follow::Yes: return true;
    case PathArgs::Follow::No: return false;
    case PathArgs::Follow::AtFlag: return !(s.a[p.flags_arg] & AT_SYMLINK_NOFOLLOW);
    case PathArgs::Follow::OpenFlags: {
      const uint64_t f = s.a[p.flags_arg];
      // O_CREAT and O_EXCL have the same values on both.
      return !(f & kX86OpenFlags.nofollow) && (f & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
    }
  }
  return true;
}

// The call's absolute file names as the x86-64 root has them: the new
// names live in `storage` until the call is done.
void name_in_root(const PathArgs& p, SyscallArgs& s, std::string (&storage)[2]) {
  const auto last = follows_last_link(p, s) ? GuestRoot::Last::Follow : GuestRoot::Last::NoFollow;
  for (unsigned k = 0; k < 2; ++k) {
    if (p.arg[k] < 0) continue;
    uint64_t& arg = s.a[p.arg[k]];
    if (unmapped_guest_ptr(arg)) continue;  // the call answers EFAULT
    const char* name = guest_ptr<const char>(arg);
    if (name[0] != '/') continue;
    storage[k] = g_process.config.root.host_path(name, last);
    arg = reinterpret_cast<uint64_t>(storage[k].c_str());
  }
}

// A forwarded library's name leads to its guest side (which phybin keeps
// alive for the whole run: the pointer stays valid).
void name_forwarded_libraries(ForwardedCalls& forwarded, const PathArgs& p, SyscallArgs& s) {
  for (unsigned k = 0; k < 2; ++k) {
    if (p.arg[k] < 0 || unmapped_guest_ptr(s.a[p.arg[k]])) continue;
    if (const char* library = forwarded.library_for(guest_ptr<const char>(s.a[p.arg[k]])))
      s.a[p.arg[k]] = reinterpret_cast<uint64_t>(library);
  }
}

}  // namespace

void SyscallTable::add(uint32_t x86_nr, SyscallHandler fn) {
  entries_[x86_nr].fn = fn;
  entries_[x86_nr].host_nr = -1;
}

void SyscallTable::pass(uint32_t x86_nr, long host_nr) {
  entries_[x86_nr].fn = pass_through;
  entries_[x86_nr].host_nr = host_nr;
}

void SyscallTable::names(uint32_t x86_nr, PathArgs paths) { entries_[x86_nr].paths = paths; }

const SyscallTable::Entry* SyscallTable::find(uint64_t x86_nr) const {
  if (x86_nr > kX86MaxSyscall || entries_[x86_nr].fn == nullptr) return nullptr;
  return &entries_[x86_nr];
}

const char* x86_syscall_name(uint64_t number) {
  for (const NamedSyscall& entry : kX86SyscallNames) {
    if (entry.number == number) return entry.name;
  }
  return nullptr;
}

void init_process(const ProcessConfig& config) {
  ProcessInfo& p = g_process;
  p = ProcessInfo{};
  p.config = config;
  const long page = sysconf(_SC_PAGESIZE);
  p.page_size = page > 0 ? static_cast<uint64_t>(page) : 4096;
  p.address_space.set_page_size(p.page_size);
  p.brk_start = config.initial_brk;
  p.brk_current = config.initial_brk;
  // The loader mapped the page holding the initial break.
  p.brk_mapped_end = (config.initial_brk + p.page_size - 1) & ~(p.page_size - 1);
  init_guest_signals(p);
}

ProcessInfo& process() { return g_process; }

namespace {
constexpr uint32_t kCountedSyscalls = 1024;
std::atomic<uint64_t>* g_syscall_counts = nullptr;  // PHYBIN_PROFILE's, when on
}  // namespace

void count_syscalls() {
  if (!g_syscall_counts) g_syscall_counts = new std::atomic<uint64_t>[kCountedSyscalls]();
}

std::vector<std::pair<std::string, uint64_t>> syscall_counts() {
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (uint32_t nr = 0; g_syscall_counts && nr < kCountedSyscalls; ++nr) {
    const uint64_t n = g_syscall_counts[nr].load(std::memory_order_relaxed);
    if (n == 0) continue;
    const char* name = x86_syscall_name(nr);
    counts.emplace_back(name ? name : "syscall " + std::to_string(nr), n);
  }
  std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return counts;
}

void handle_syscall(GuestState& st, const volatile sig_atomic_t* interrupt) {
  // The x86-64 kernel looks at the low 32 bits of RAX only.
  const uint32_t number = static_cast<uint32_t>(st.gpr[RAX]);
  if (g_syscall_counts && number < kCountedSyscalls) g_syscall_counts[number].fetch_add(1, std::memory_order_relaxed);
  SyscallArgs args{st, {st.gpr[RDI], st.gpr[RSI], st.gpr[RDX], st.gpr[R10], st.gpr[R8], st.gpr[R9]},
                   -1, interrupt};
  const SyscallTable::Entry* entry = syscall_table().find(number);
  int64_t result;
  if (entry == nullptr) {
    warn_unsupported(number);
    result = -ENOSYS;
  } else {
    args.host_nr = entry->host_nr;
    std::string host_names[2];
    if (ForwardedCalls* forwarded = g_process.config.forwarded)
      name_forwarded_libraries(*forwarded, entry->paths, args);
    if (g_process.config.root.active()) name_in_root(entry->paths, args, host_names);
    result = entry->fn(args);
  }
  if (log_enabled(LogLevel::Debug)) trace_syscall(number, args, result);
  st.gpr[RAX] = static_cast<uint64_t>(result);
}

bool names_own_proc_file(const char* path, const char* leaf) {
  static constexpr char kProc[] = "/proc/";
  static constexpr size_t kProcLength = sizeof kProc - 1;
  if (std::strncmp(path, kProc, kProcLength) != 0) return false;
  const char* component = path + kProcLength;
  const char* slash = std::strchr(component, '/');
  if (slash == nullptr || std::strcmp(slash + 1, leaf) != 0) return false;
  return proc_component_is_us(component, static_cast<size_t>(slash - component));
}

bool names_own_exe(const char* path) { return names_own_proc_file(path, "exe"); }

const char* host_path_following_links(const char* path) {
  const std::string& exe = g_process.config.guest_exe_path;
  if (path != nullptr && !exe.empty() && names_own_exe(path)) return exe.c_str();
  return path;
}

CodeReadersHeld::CodeReadersHeld() {
  if (g_process.config.hold_code_readers != nullptr) g_process.config.hold_code_readers(true);
}

CodeReadersHeld::~CodeReadersHeld() {
  if (g_process.config.hold_code_readers != nullptr) g_process.config.hold_code_readers(false);
}

void invalidate_guest_code(uint64_t start, uint64_t length) {
  if (g_process.config.invalidate_code != nullptr && length != 0) {
    g_process.config.invalidate_code(start, length);
  }
}

}  // namespace phybin::sys
