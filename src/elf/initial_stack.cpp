#include "elf/initial_stack.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/log.h"
#include "elf/guest_memory.h"

namespace phybin::elf {

namespace {

// Auxiliary vector keys of the x86-64 Linux ABI (include/uapi/linux/auxvec.h);
// spelled out here because they are the guest's ABI, not the host's.
enum AuxKey : uint64_t {
  kAtNull = 0,
  kAtPhdr = 3,
  kAtPhent = 4,
  kAtPhnum = 5,
  kAtPagesz = 6,
  kAtBase = 7,
  kAtFlags = 8,
  kAtEntry = 9,
  kAtUid = 11,
  kAtEuid = 12,
  kAtGid = 13,
  kAtEgid = 14,
  kAtPlatform = 15,
  kAtHwcap = 16,
  kAtClktck = 17,
  kAtSecure = 23,
  kAtRandom = 25,
  kAtHwcap2 = 26,
  kAtExecfn = 31,
  kAtMinsigstksz = 51,
};

constexpr char kPlatform[] = "x86_64";
constexpr size_t kRandomBytes = 16;
constexpr uint64_t kStackAlignment = 16;  // x86-64 psABI: RSP at argc

// Writes downwards from the top of the stack; guest address == host address.
class StackWriter {
 public:
  explicit StackWriter(uint64_t top) : sp_(top) {}
  uint64_t sp() const { return sp_; }

  uint64_t push_bytes(const void* data, size_t length) {
    sp_ -= length;
    std::memcpy(reinterpret_cast<void*>(sp_), data, length);
    return sp_;
  }
  uint64_t push_string(const std::string& text) { return push_bytes(text.c_str(), text.size() + 1); }
  void align_down_to(uint64_t alignment) { sp_ = align_down(sp_, alignment); }
  void reserve(uint64_t bytes) { sp_ -= bytes; }

 private:
  uint64_t sp_;
};

// Strings pushed last-first so that they lie in memory in their order.
std::vector<uint64_t> push_strings(StackWriter& writer, const std::vector<std::string>& strings) {
  std::vector<uint64_t> addresses(strings.size());
  for (size_t i = strings.size(); i-- > 0;) addresses[i] = writer.push_string(strings[i]);
  return addresses;
}

void fill_random(unsigned char* out, size_t length) {
  while (length > 0) {
    ssize_t got = ::getrandom(out, length, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw Error(ErrorCode::PHYBIN_ERR_INTERNAL,
                  std::string("getrandom for AT_RANDOM failed: ") + std::strerror(errno));
    out += got;
    length -= static_cast<size_t>(got);
  }
}

// Linux refuses an exec whose strings and pointers take more than a quarter
// of the stack limit; so do we, before touching memory.
void check_arguments_fit(const std::vector<std::string>& argv, const std::vector<std::string>& envp,
                         const std::string& execfn, uint64_t stack_size) {
  uint64_t bytes = execfn.size() + 1 + (argv.size() + envp.size() + 3) * sizeof(uint64_t);
  for (const std::string& s : argv) bytes += s.size() + 1;
  for (const std::string& s : envp) bytes += s.size() + 1;
  if (bytes > stack_size / 4)
    throw Error(ErrorCode::PHYBIN_ERR_USAGE, "argument list too long: arguments and environment take " +
                                                 std::to_string(bytes) + " bytes, more than a quarter of the " +
                                                 std::to_string(stack_size) + "-byte guest stack");
}

struct AuxStrings {
  uint64_t execfn, platform, random;
};

std::vector<std::pair<uint64_t, uint64_t>> make_auxv(const LoadedImage& image, const StackOptions& options,
                                                     const AuxStrings& at) {
  bool secure = ::getuid() != ::geteuid() || ::getgid() != ::getegid();
  // Linux's order (create_elf_tables), without AT_SYSINFO_EHDR: the guest has
  // no x86-64 vDSO and glibc falls back to real system calls.
  return {
      {kAtMinsigstksz, options.min_signal_stack_size},
      {kAtHwcap, options.hwcap},
      {kAtPagesz, kGuestPageSize},
      {kAtClktck, options.clock_ticks},
      {kAtPhdr, image.phdr_addr},
      {kAtPhent, image.phent},
      {kAtPhnum, image.phnum},
      {kAtBase, options.interpreter_base},
      {kAtFlags, 0},
      {kAtEntry, image.entry},
      {kAtUid, ::getuid()},
      {kAtEuid, ::geteuid()},
      {kAtGid, ::getgid()},
      {kAtEgid, ::getegid()},
      {kAtSecure, secure ? 1u : 0u},
      {kAtRandom, at.random},
      {kAtHwcap2, options.hwcap2},
      {kAtExecfn, at.execfn},
      {kAtPlatform, at.platform},
      {kAtNull, 0},
  };
}

void store(uint64_t address, uint64_t value) { std::memcpy(reinterpret_cast<void*>(address), &value, sizeof value); }

// argc, argv[], NULL, envp[], NULL, auxv: consecutive 8-byte words from `at`.
void write_vectors(uint64_t at, const std::vector<uint64_t>& argv, const std::vector<uint64_t>& envp,
                   const std::vector<std::pair<uint64_t, uint64_t>>& auxv) {
  auto put = [&at](uint64_t word) {
    store(at, word);
    at += sizeof word;
  };
  put(argv.size());
  for (uint64_t p : argv) put(p);
  put(0);
  for (uint64_t p : envp) put(p);
  put(0);
  for (const auto& [key, value] : auxv) {
    put(key);
    put(value);
  }
}

}  // namespace

uint64_t build_initial_stack(const LoadedImage& image, const std::vector<std::string>& argv,
                             const std::vector<std::string>& envp, const StackOptions& options, StackInfo* info) {
  const uint64_t page = host_page_size();
  const uint64_t size = align_up(options.stack_size > 0 ? options.stack_size : page, page);
  const std::string execfn = options.execfn.empty() ? image.path : options.execfn;
  check_arguments_fit(argv, envp, execfn, size);

  // The lowest page stays inaccessible: running off the stack faults instead
  // of scribbling over whatever lies below.
  const int prot = PROT_READ | PROT_WRITE | (options.executable ? PROT_EXEC : 0);
  uint64_t mapping = map_anywhere_for_guest(size + page, prot, MAP_NORESERVE, "guest stack");
  ::mprotect(reinterpret_cast<void*>(mapping), page, PROT_NONE);
  StackInfo where;
  where.mapping_start = mapping;
  where.mapping_size = size + page;
  where.stack_low = mapping + page;
  where.stack_top = mapping + page + size;

  StackWriter writer(where.stack_top);
  writer.reserve(sizeof(uint64_t));  // Linux ends the stack with a zero word
  AuxStrings at{};
  at.execfn = writer.push_string(execfn);
  std::vector<uint64_t> env_addresses = push_strings(writer, envp);
  std::vector<uint64_t> arg_addresses = push_strings(writer, argv);
  writer.align_down_to(kStackAlignment);
  at.platform = writer.push_string(kPlatform);
  unsigned char random[kRandomBytes];
  fill_random(random, sizeof random);
  at.random = writer.push_bytes(random, sizeof random);

  auto auxv = make_auxv(image, options, at);
  uint64_t words = 1 + (argv.size() + 1) + (envp.size() + 1) + 2 * auxv.size();
  writer.reserve(words * sizeof(uint64_t));
  writer.align_down_to(kStackAlignment);
  write_vectors(writer.sp(), arg_addresses, env_addresses, auxv);

  where.rsp = writer.sp();
  where.argv = where.rsp + 8;
  where.envp = where.argv + (argv.size() + 1) * 8;
  where.auxv = where.envp + (envp.size() + 1) * 8;
  where.auxv_bytes = auxv.size() * 16;
  where.execfn = at.execfn;
  where.platform = at.platform;
  where.random = at.random;
  logf(LogLevel::Debug, "phybin: guest stack %s, rsp %s, auxv %s",
       address_range(where.stack_low, where.stack_top).c_str(), hex_address(where.rsp).c_str(),
       hex_address(where.auxv).c_str());
  if (info) *info = where;
  return where.rsp;
}

void release_stack(const StackInfo& info) {
  if (info.mapping_size > 0) ::munmap(reinterpret_cast<void*>(info.mapping_start), info.mapping_size);
}

}  // namespace phybin::elf
