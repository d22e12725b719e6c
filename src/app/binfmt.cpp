// phybin register | unregister | status: binfmt_misc starts x86-64 ELF
// executables (ET_EXEC and ET_DYN, any OS ABI byte) through phybin, so
// that ./prog just works.  The entry is named "phybin"; its interpreter is
// phybin-binfmt, a link to phybin beside it, by which phybin knows how it
// was started.  Flags:
//   F  the kernel opens the interpreter when the entry is registered, so
//      programs start through it in containers and chroots that do not
//      have phybin's files;
//   P  the program's own argv[0] is passed (after its path), so programs
//      that look at argv[0] (busybox-style tools) see what they were
//      started as;
// not O (the kernel would pass an open file instead of the path: phybin
// opens the program by its path, as the guest's loader does), and never C
// (the program's set-user-ID bits would give phybin, and so any program
// it runs, the file owner's privileges).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "app/commands.h"
#include "app/setup.h"
#include "common/error.h"

namespace phybin::app {

namespace {

constexpr const char* kDir = "/proc/sys/fs/binfmt_misc";
constexpr const char* kName = "phybin";
constexpr const char* kFlags = "FP";
// The ELF header's first 20 bytes: magic, 64-bit, little-endian, version
// 1, any OS ABI and padding, e_type 2 or 3, e_machine 62 (x86-64).
constexpr const char* kMagic = R"(\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00)";
constexpr const char* kMask = R"(\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00\xfe\xff\xff\xff)";

std::string entry_path() { return std::string(kDir) + "/" + kName; }

std::string interpreter() {
  const std::string self = own_executable();
  return self.substr(0, self.rfind('/') + 1) + kBinfmtInterpreterName;
}

[[noreturn]] void fail(const std::string& why) { throw Error(ErrorCode::PHYBIN_ERR_BINFMT, why); }

void require_binfmt_misc() {
  if (access((std::string(kDir) + "/register").c_str(), F_OK) != 0)
    fail(std::string("binfmt_misc is not mounted at ") + kDir +
         " (as root: mount -t binfmt_misc binfmt_misc " + kDir + "; systemd does it at boot)");
}

// Writes `text` to a binfmt_misc control file.
void write_control(const std::string& file, const std::string& text, const char* what) {
  const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  const ssize_t n = fd < 0 ? -1 : write(fd, text.data(), text.size());
  const int error = errno;
  if (fd >= 0) close(fd);
  if (n == static_cast<ssize_t>(text.size())) return;
  if (error == EACCES || error == EPERM) fail(std::string(what) + " needs root (run it with sudo)");
  fail(std::string(what) + " failed: " + file + ": " + std::strerror(error));
}

// The registered entry's "interpreter" and "flags:" lines; empty when none.
bool read_entry(std::string& interp, std::string& flags, bool& enabled) {
  std::ifstream in(entry_path());
  if (!in) return false;
  std::string line;
  enabled = false;
  while (std::getline(in, line)) {
    if (line == "enabled") enabled = true;
    else if (line.starts_with("interpreter ")) interp = line.substr(12);
    else if (line.starts_with("flags: ")) flags = line.substr(7);
  }
  return true;
}

}  // namespace

std::string binfmt_status_line() {
  if (access((std::string(kDir) + "/register").c_str(), F_OK) != 0) return "not mounted (x86-64 programs do not start by themselves)";
  std::string interp, flags;
  bool enabled = false;
  if (!read_entry(interp, flags, enabled)) return "x86-64 programs do not start through phybin (phybin register)";
  return std::string(enabled ? "x86-64 programs start through " : "registered but disabled: ") + interp +
         " (entry " + kName + ", flags " + flags + ")";
}

int run_register() {
  require_binfmt_misc();
  const std::string interp = interpreter();
  if (access(interp.c_str(), X_OK) != 0)
    fail(interp + " is missing: it is a link to phybin, made by the build and the package (ln -s phybin " + interp + ")");
  std::string old_interp, old_flags;
  bool enabled = false;
  if (read_entry(old_interp, old_flags, enabled)) {
    std::string flags = old_flags, want = kFlags;  // the kernel lists them in its own order
    std::sort(flags.begin(), flags.end());
    std::sort(want.begin(), want.end());
    if (old_interp == interp && flags == want && enabled) {
      std::printf("phybin: already registered: x86-64 programs start through %s\n", interp.c_str());
      return 0;
    }
    write_control(entry_path(), "-1", "replacing the binfmt_misc entry");
  }
  write_control(std::string(kDir) + "/register",
                std::string(":") + kName + ":M::" + kMagic + ":" + kMask + ":" + interp + ":" + kFlags,
                "registering with binfmt_misc");
  std::printf("phybin: registered: x86-64 programs start through %s (flags %s)\n", interp.c_str(), kFlags);
  return 0;
}

int run_unregister() {
  require_binfmt_misc();
  std::string interp, flags;
  bool enabled = false;
  if (!read_entry(interp, flags, enabled)) {
    std::printf("phybin: not registered\n");
    return 0;
  }
  write_control(entry_path(), "-1", "unregistering from binfmt_misc");
  std::printf("phybin: unregistered: x86-64 programs no longer start through %s\n", interp.c_str());
  return 0;
}

// The same entry for binfmt-support's update-binfmts (/usr/share/binfmts/
// phybin in the Debian package), with `interp` as its interpreter.
int print_binfmt_support_entry(const std::string& interp) {
  std::printf("package phybin\ninterpreter %s\nmagic %s\nmask %s\ncredentials no\npreserve yes\nfix_binary yes\n",
              interp.c_str(), kMagic, kMask);
  return 0;
}

// Exit status 0 when x86-64 programs start through phybin, 1 when not.
int run_status() {
  std::printf("binfmt_misc: %s\n", binfmt_status_line().c_str());
  std::string interp, flags;
  bool enabled = false;
  return read_entry(interp, flags, enabled) && enabled ? 0 : 1;
}

}  // namespace phybin::app
