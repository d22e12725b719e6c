// execve and execveat.  The new image is classified as the kernel would:
// an x86-64 ELF starts under phybin again, a "#!" script's interpreter is
// looked at the same way (up to the kernel's nesting limit), and anything
// else (an AArch64 program, a script run by one) is the host kernel's to
// start natively.
#include <elf.h>
#include <fcntl.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/log.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

// The kernel reads this much of a file to choose its format
// (BINPRM_BUF_SIZE), and follows at most this many interpreters.
constexpr size_t kHeaderBytes = 256;
constexpr int kMaxInterpreters = 4;

// The guest's NULL-terminated array of strings; false when a pointer in it
// is bad.
bool read_string_array(uint64_t address, std::vector<std::string>& out) {
  if (address == 0) return true;  // Linux accepts a NULL argv or envp as empty
  for (;; address += 8) {
    if (unmapped_guest_ptr(address)) return false;
    const uint64_t p = *guest_ptr<const uint64_t>(address);
    if (p == 0) return true;
    if (unmapped_guest_ptr(p)) return false;
    out.emplace_back(guest_ptr<const char>(p));
  }
}

enum class Image { X86_64, Script, Other };

struct Header {
  Image kind = Image::Other;
  std::string interpreter, interpreter_arg;  // Script
};

// "#!interpreter [one argument]" as the kernel splits it: blanks around
// both, the argument is the rest of the line.
void parse_script_line(const char* text, size_t size, Header& h) {
  std::string line(text + 2, size - 2);
  line = line.substr(0, line.find('\n'));
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  size_t i = 0;
  while (i < line.size() && blank(line[i])) ++i;
  size_t end = i;
  while (end < line.size() && !blank(line[end])) ++end;
  h.interpreter = line.substr(i, end - i);
  while (end < line.size() && blank(line[end])) ++end;
  size_t last = line.size();
  while (last > end && blank(line[last - 1])) --last;
  h.interpreter_arg = line.substr(end, last - end);
}

// -errno when the file cannot be read; the execute permission is left to
// the caller.
int64_t read_header(const std::string& file, bool nofollow, Header& h) {
  const int64_t fd =
      host_syscall(SYS_openat, AT_FDCWD, file.c_str(), O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
  if (fd < 0) return fd;
  char buf[kHeaderBytes];
  const int64_t n = host_syscall(SYS_pread64, fd, buf, sizeof buf, 0);
  host_syscall(SYS_close, fd);
  if (n < 0) return n;
  const size_t size = static_cast<size_t>(n);
  if (size >= sizeof(Elf64_Ehdr) && std::memcmp(buf, ELFMAG, SELFMAG) == 0 && buf[EI_CLASS] == ELFCLASS64) {
    Elf64_Half machine;
    std::memcpy(&machine, buf + offsetof(Elf64_Ehdr, e_machine), sizeof machine);
    if (machine == EM_X86_64) h.kind = Image::X86_64;
  } else if (size > 2 && buf[0] == '#' && buf[1] == '!') {
    h.kind = Image::Script;
    parse_script_line(buf, size, h);
  }
  return 0;
}

// The guest's program as a path that names it from anywhere (phybin is
// given a path, not a directory descriptor).
std::string program_path(int dirfd, const char* path, int at_flags) {
  if (*path == '/' || dirfd == AT_FDCWD) return host_path_following_links(path);
  std::string fd_dir = "/proc/self/fd/" + std::to_string(dirfd);
  if (*path == '\0' && (at_flags & AT_EMPTY_PATH)) return fd_dir;
  return fd_dir + "/" + path;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// phybin --argv0 ARGV0 -- PROGRAM ARGS...: the guest's argv[0] need not
// name the program.
int64_t exec_under_phybin(const std::string& program, std::vector<std::string> argv,
                          std::vector<std::string>& envp) {
  const ProcessConfig& config = process().config;
  const std::string& phybin = config.phybin_path;
  if (phybin.empty()) return -ENOEXEC;
  std::vector<std::string> args = {phybin, "--argv0", argv.empty() ? program : argv[0]};
  if (config.root.active()) args.insert(args.end(), {"--rootfs", config.root.root()});
  // The host's mask reaches the new phybin by itself, but for SIGSEGV and
  // SIGBUS, which phybin never blocks on the host.
  if (const uint64_t blocked = thread_signals().blocked_runtime_signals)
    args.insert(args.end(), {"--blocked-signals", std::to_string(blocked)});
  args.insert(args.end(), {"--", program});
  for (size_t i = 1; i < argv.size(); ++i) args.push_back(std::move(argv[i]));
  logf(LogLevel::Info, "execve: %s starts under phybin", program.c_str());
  std::vector<char*> a = c_strings(args), e = c_strings(envp);
  return host_syscall(SYS_execve, phybin.c_str(), a.data(), e.data());
}

int64_t do_execveat(int dirfd, uint64_t guest_path, uint64_t guest_argv, uint64_t guest_envp, int at_flags) {
  if (unmapped_guest_ptr(guest_path)) return -EFAULT;
  const char* path = guest_ptr<const char>(guest_path);
  if (*path == '\0' && !(at_flags & AT_EMPTY_PATH)) return -ENOENT;
  // Names as the guest sees them go to phybin; the files are looked at
  // where they are (the x86-64 root first).
  const GuestRoot& root = process().config.root;
  const std::string program = program_path(dirfd, path, at_flags);
  const std::string program_file = root.host_path(program);
  // The host starts it.  execveat only where execve cannot say the same
  // (qemu-user before 8.0 lacks it).
  // A native program gets the guest's mask whole: SIGSEGV and SIGBUS are
  // blocked on the host for the call (unblocked again if it fails).
  const auto native = [&] {
    const uint64_t blocked = thread_signals().blocked_runtime_signals;
    if (blocked) host_syscall(SYS_rt_sigprocmask, SIG_BLOCK, &blocked, nullptr, sizeof blocked);
    const int64_t r = at_flags == 0
                          ? host_syscall(SYS_execve, program_file.c_str(), guest_argv, guest_envp)
                          : host_syscall(SYS_execveat, dirfd, host_path_following_links(path), guest_argv, guest_envp,
                                         at_flags);
    if (blocked) host_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &blocked, nullptr, sizeof blocked);
    return r;
  };
  if (int64_t r = host_syscall(SYS_faccessat, AT_FDCWD, program_file.c_str(), X_OK); r < 0) return r;
  Header h;
  if (int64_t r = read_header(program_file, (at_flags & AT_SYMLINK_NOFOLLOW) != 0, h); r < 0) return r;
  // The kernel copies the strings after it opened the file.
  std::vector<std::string> argv, envp;
  if (!read_string_array(guest_argv, argv) || !read_string_array(guest_envp, envp)) return -EFAULT;
  if (h.kind == Image::X86_64) return exec_under_phybin(program, std::move(argv), envp);
  // A script: the interpreter gets the script's name after its own
  // argument, and the script's argv[0] is dropped, as the kernel does.
  std::vector<std::string> args = argv;
  std::string script = program;
  for (int depth = 0; h.kind == Image::Script; ++depth) {
    if (depth == kMaxInterpreters || h.interpreter.empty()) return depth == 0 ? -ENOEXEC : -ELOOP;
    std::vector<std::string> next = {h.interpreter};
    if (!h.interpreter_arg.empty()) next.push_back(h.interpreter_arg);
    next.push_back(script);
    for (size_t i = 1; i < args.size(); ++i) next.push_back(args[i]);
    args = std::move(next);
    script = h.interpreter;
    Header inner;
    const std::string file = root.host_path(script);
    if (host_syscall(SYS_faccessat, AT_FDCWD, file.c_str(), X_OK) < 0 || read_header(file, false, inner) < 0)
      return native();  // the kernel reports what is wrong with it
    h = std::move(inner);
  }
  if (h.kind == Image::X86_64) return exec_under_phybin(script, std::move(args), envp);
  return native();
}

int64_t sys_execve(const SyscallArgs& s) { return do_execveat(AT_FDCWD, s.a[0], s.a[1], s.a[2], 0); }

int64_t sys_execveat(const SyscallArgs& s) {
  return do_execveat(static_cast<int>(s.a[0]), s.a[1], s.a[2], s.a[3], static_cast<int>(s.a[4]));
}

}  // namespace

void register_exec_syscalls(SyscallTable& t) {
  t.add(X86_NR_execve, sys_execve);
  t.add(X86_NR_execveat, sys_execveat);
}

}  // namespace phybin::sys
