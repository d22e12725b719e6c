// phybin's command line: `phybin [run] PROG [ARGS...]`.
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "app/config.h"
#include "forward/forwarder.h"
#include "common/error.h"
#include "common/log.h"
#include "common/mxcsr.h"
#include "elf/elf_reader.h"
#include "elf/initial_stack.h"
#include "elf/loader.h"
#include "linux/syscalls.h"
#include "runtime/guest_thread.h"
#include "runtime/guest_threads.h"
#include "runtime/process.h"
#include "runtime/signals.h"
#include "x86/cpuinfo.h"
#include "x86/helpers.h"

extern char** environ;

namespace phybin::app {
namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: phybin [run] [--argv0 NAME] [--rootfs DIR] [--blocked-signals MASK] [--] PROGRAM [ARGS...]\n"
               "                                  run an x86-64 Linux program (--argv0: its argv[0] when\n"
               "                                  not PROGRAM; --rootfs: as PHYBIN_ROOTFS; --blocked-signals:\n"
               "                                  SIGSEGV/SIGBUS bits the guest blocks, from an execve)\n"
               "       phybin --help | --version\n"
               "settings (environment): PHYBIN_CACHE_SIZE (MiB, or 512K), PHYBIN_CACHE_DIR (saved\n"
               "translations; off), PHYBIN_LOG_LEVEL (0-3), PHYBIN_LOG_FILE, PHYBIN_STRICT_FLAGS, PHYBIN_EXACT_MXCSR,\n"
               "PHYBIN_ROOTFS (an x86-64 root looked up before the machine's files), PHYBIN_TSO,\n"
               "PHYBIN_FORWARD (libraries run natively: all, none, or names such as opencl), PHYBIN_ROCM_PATH\n"
               "(a ROCm installation whose lib/ is searched first for HSA and HIP), PHYBIN_WATCHDOG\n"
               "(seconds a forwarded call may block before it is reported), PHYBIN_WATCHDOG_ACTION (report, abort).\n"
               "Error codes are listed in phybin's README.\n");
}

std::string absolute_path(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  return path;
}

// The guest exits (exit_group, or a signal phybin delivers kills it), on
// its guest thread.
void before_exit(int) {
  if (runtime::GuestThread* thread = runtime::GuestThread::current()) {
    thread->process().log_stats();
    thread->process().save_translations();
  }
  std::fflush(nullptr);
}

// The kernel keeps the space above a program for its heap (brk); what is
// mapped before the guest runs (its interpreter, its stack, the code cache)
// must not land there, as it would under an allocator that searches
// upwards (qemu-user's does).  Held until the guest runs.
class HeapGap {
 public:
  HeapGap() = default;
  explicit HeapGap(uint64_t brk_start)
      : start_(mmap(reinterpret_cast<void*>(brk_start), kSize, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0)) {}
  void release() {
    if (start_ != MAP_FAILED) munmap(start_, kSize);
    start_ = MAP_FAILED;
  }

 private:
  static constexpr size_t kSize = size_t{1} << 30;
  void* start_ = MAP_FAILED;
};

// The program and, when it names one, its interpreter (the guest's own
// ld-linux-x86-64.so.2), mapped as Linux's binfmt_elf maps them: the
// guest starts in the interpreter, which finds the program through auxv.
struct LoadedProgram {
  elf::ElfInfo info;
  elf::LoadedImage image;
  std::optional<elf::LoadedImage> interpreter;
  HeapGap heap_gap;

  uint64_t entry() const { return interpreter ? interpreter->entry : image.entry; }
  uint64_t interpreter_base() const { return interpreter ? interpreter->load_bias : 0; }
};

// The interpreter is looked up on the machine itself, where Debian's
// multiarch puts it (libc6:amd64 installs /lib64/ld-linux-x86-64.so.2).
std::string find_interpreter(const elf::ElfInfo& program, const sys::GuestRoot& root) {
  const std::string path = root.host_path(program.interpreter);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return path;
  int saved = errno;
  if (saved != ENOENT && saved != ENOTDIR) return path;  // inspect_elf says what is wrong with it
  throw Error(ErrorCode::PHYBIN_ERR_NO_INTERPRETER,
              program.path + " is dynamically linked and needs the x86-64 program interpreter " +
                  program.interpreter + ", which is not " +
                  (root.active() ? "in the x86-64 root " + root.root() + " nor on this machine"
                                 : std::string("on this machine")) +
                  "; install the x86-64 C library (Debian: dpkg --add-architecture amd64; apt install "
                  "libc6:amd64)" + (root.active() ? " or set PHYBIN_ROOTFS to a complete x86-64 root" : ""));
}

LoadedProgram load_program(const std::string& path, const sys::GuestRoot& root) {
  LoadedProgram program;
  program.info = elf::inspect_elf(path);
  std::optional<elf::ElfInfo> interpreter;
  if (program.info.kind == elf::ElfKind::Dynamic)
    interpreter = elf::inspect_interpreter(find_interpreter(program.info, root), path);
  program.image = elf::load_image(program.info);
  program.heap_gap = HeapGap(program.image.brk_start);
  if (interpreter) program.interpreter = elf::load_image(*interpreter);
  return program;
}

// The program's translations are saved under its file's identity.
runtime::PersistOptions persist_options(const Settings& settings, const std::string& guest_path) {
  runtime::PersistOptions persist;
  persist.dir = settings.translation_dir;
  persist.guest_path = guest_path;
  return persist;
}

// A set-user-ID or set-group-ID program started through phybin (or
// binfmt_misc without the C flag) runs with the caller's own IDs: the
// kernel gives privileges only to the program it starts, phybin, which has
// none.  Said once, so that a failure for lack of privilege is understood.
void warn_if_setuid(const std::string& path, const struct stat& st) {
  if (!(st.st_mode & (S_ISUID | S_ISGID))) return;
  logf(LogLevel::Warn, "phybin: warning: %s is set-%s-ID; it runs with your own privileges, not its owner's",
       path.c_str(), (st.st_mode & S_ISUID) ? "user" : "group");
}

// An image's segments as /proc/self/maps names them: the file by its real
// path as the guest sees it.
void record_image(sys::AddressSpace& space, const elf::LoadedImage& image, const sys::GuestRoot& root) {
  sys::AddressSpace::Source source;
  struct stat st {};
  if (::stat(image.path.c_str(), &st) == 0) {
    source.name = root.guest_view(absolute_path(image.path));
    source.identify(st);
    warn_if_setuid(image.path, st);
  }
  for (const elf::MappedSegment& seg : image.segments) {
    source.offset = seg.file_offset;
    if (seg.file_end > seg.start) space.map(seg.start, seg.file_end - seg.start, seg.host_prot, source);
    if (seg.end > seg.file_end) space.map(seg.file_end, seg.end - seg.file_end, seg.host_prot);
  }
}

// What the kernel would have mapped for the program: its segments, its
// interpreter's and its stack (below it the guard page, which is mapped
// PROT_NONE).
void record_initial_mappings(const LoadedProgram& program, const elf::StackInfo& stack, bool executable_stack,
                             const sys::GuestRoot& root) {
  sys::AddressSpace& space = sys::process().address_space;
  record_image(space, program.image, root);
  if (program.interpreter) record_image(space, *program.interpreter, root);
  sys::AddressSpace::Source stack_source;
  stack_source.name = "[stack]";
  space.map(stack.mapping_start, stack.mapping_size,
            PROT_READ | PROT_WRITE | (executable_stack ? PROT_EXEC : 0), stack_source);
  space.protect(stack.mapping_start, stack.stack_low - stack.mapping_start, PROT_NONE);
}

// The guest sides of the forwarded libraries: beside phybin.
std::string guest_libs_dir(const std::string& phybin) {
  return phybin.substr(0, phybin.rfind('/') + 1) + "guest-libs";
}

// PHYBIN_FORWARD: all, none, or names the build knows.
std::string checked_forward(const std::string& which) {
  const std::optional<std::string> unknown = forward::Forwarder::unknown_library(which);
  if (!unknown) return which;
  std::string list;
  for (const std::string& k : forward::Forwarder::known_libraries()) list += " " + k;
  throw Error(ErrorCode::PHYBIN_ERR_USAGE,
              "PHYBIN_FORWARD='" + which + "': '" + *unknown + "' is not a forwarded library (all, none," + list + ")");
}

// phybin's own executable, for execve of x86-64 programs (read before the
// guest can change what /proc/self/exe answers phybin: nothing can yet).
std::string own_executable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

sys::GuestRoot guest_root(const Settings& settings) {
  const char* home = std::getenv("HOME");
  sys::GuestRoot root(settings.rootfs, home ? home : "");
  if (root.active()) logf(LogLevel::Info, "phybin: x86-64 root %s, then this machine", root.root().c_str());
  else logf(LogLevel::Info, "phybin: x86-64 files from this machine (no PHYBIN_ROOTFS)");
  return root;
}

// `guest_path` names the program as the guest does: inside the x86-64
// root when it is there.
[[noreturn]] void run_program(const Settings& settings, const std::string& guest_path,
                              const std::vector<std::string>& guest_argv) {
  sys::GuestRoot root = guest_root(settings);
  const std::string path = root.host_path(guest_path);
  LoadedProgram program = load_program(path, root);
  const elf::ElfInfo& info = program.info;
  const elf::LoadedImage& image = program.image;

  std::vector<std::string> envp;
  for (char** e = environ; *e; ++e) envp.emplace_back(*e);
  elf::StackOptions stack;
  stack.hwcap = x86::cpuid_leaf1_edx();
  stack.execfn = guest_path;
  stack.executable = info.wants_executable_stack();
  stack.interpreter_base = program.interpreter_base();
  elf::StackInfo stack_info;
  uint64_t rsp = elf::build_initial_stack(image, guest_argv, envp, stack, &stack_info);

  sys::ProcessConfig process;
  // A program in the root is known by its name there.
  process.guest_exe_path = path == guest_path ? absolute_path(path) : guest_path;
  process.phybin_path = own_executable();
  process.root = root;
  process.cpuinfo = [] {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return x86::proc_cpuinfo(cpus > 0 ? static_cast<unsigned>(cpus) : 1);
  };
  const auto* auxv = reinterpret_cast<const uint8_t*>(stack_info.auxv);
  process.auxv.assign(auxv, auxv + stack_info.auxv_bytes);
  process.initial_brk = image.brk_start;
  process.before_exit = &before_exit;
  process.invalidate_code = &runtime::invalidate_guest_code;
  process.host_signal_handler = &runtime::host_signal_handler;
  process.fxsave = &runtime::save_fpu_state;
  process.fxrstor = &runtime::restore_fpu_state;
  process.set_mxcsr = &runtime::set_guest_mxcsr;
  process.start_thread = &runtime::start_guest_thread;
  process.exit_thread = &runtime::exit_guest_thread;
  forward::Forwarder::Options forwarding;
  forwarding.guest_dir = guest_libs_dir(process.phybin_path);
  forwarding.which = checked_forward(settings.forward);
  if (!settings.rocm_path.empty()) {
    forwarding.rocm_path = settings.rocm_path;
    forwarding.rocm_path_set = true;
  }
  forwarding.watchdog_seconds = settings.watchdog_seconds;
  forwarding.watchdog_abort = settings.watchdog_abort;
  static forward::Forwarder forwarder(std::move(forwarding));
  process.forwarded = &forwarder;
  process.run_guest_call = &runtime::run_guest_call;
  process.current_guest_state = &runtime::current_guest_state;
  process.on_fork = &runtime::guest_fork_stage;
  sys::init_process(process);
  sys::set_guest_signal_mask(sys::guest_signal_mask() | settings.blocked_runtime_signals);
  record_initial_mappings(program, stack_info, stack.executable, root);

  static GuestState state;
  state.rip = program.entry();
  state.gpr[RSP] = rsp;
  state.rflags = 0x202;
  state.mxcsr = mxcsr::kDefault;
  state.fcw = 0x37f;
  state.ftw = 0xffff;  // x87 stack empty, as after fninit
  init_selectors(state);

  runtime::RuntimeOptions options;
  options.cache_bytes = settings.cache_bytes;
  options.strict_flags = settings.strict_flags;
  options.persist = persist_options(settings, process.guest_exe_path);
  options.host_crc32 = settings.host_crc32;
  options.exact_mxcsr = settings.exact_mxcsr;
  options.verify_ir = settings.verify_ir;
  options.host_pmull = settings.host_pmull;
  options.host_aes = settings.host_aes;
  options.superblocks = settings.superblocks;
  options.host_lse = settings.host_lse;
  options.tso = settings.tso == "strict" ? runtime::TsoMode::Strict
                : settings.tso == "off"  ? runtime::TsoMode::Off
                                         : runtime::TsoMode::Auto;
  static runtime::Process runtime_process(options);
  static runtime::GuestThread main_thread(runtime_process, state);
  runtime_process.load_translations();
  program.heap_gap.release();
  main_thread.run();
  runtime::finish_main_thread(state);
}

// Settings of the PhyBin notes that a translator cannot honour, said once
// (not again in the programs the guest execs), whatever the log level: the
// user set them expecting an effect.
void warn_unhonoured_settings() {
  if (const char* v = std::getenv("PHYBIN_WARP_SIZE"))
    logf(LogLevel::Error,
         "phybin: warning: PHYBIN_WARP_SIZE=%s cannot be honoured: a wavefront's size (32 or 64 lanes) is fixed by the GPU "
         "code object and the device, not by a translator (HIP reports it in hipDeviceProp_t.warpSize)",
         v);
  if (const char* v = std::getenv("HIP_PLATFORM"); v && std::strcmp(v, "phybin") == 0)
    logf(LogLevel::Error,
         "phybin: warning: HIP_PLATFORM=phybin has no effect of its own: HIP calls are forwarded to the native runtime "
         "unless PHYBIN_FORWARD leaves hip out; AMD's tools (hipcc) know only amd and nvidia");
}

int main_impl(int argc, char** argv) {
  Settings settings = read_settings();
  log_configure(settings.log_level, settings.log_file);
  int first = 1;
  if (first < argc && std::strcmp(argv[first], "run") == 0) ++first;
  if (first >= argc) {
    usage(stderr);
    throw Error(ErrorCode::PHYBIN_ERR_USAGE, "no program given");
  }
  std::string arg = argv[first];
  if (arg == "--help" || arg == "-h") {
    usage(stdout);
    return 0;
  }
  if (arg == "--version") {
    std::printf("phybin 0.1\n");
    return 0;
  }
  // execve of an x86-64 program (sys_exec.cpp) passes the guest's argv[0],
  // the x86-64 root (which the guest's environment may have dropped) and
  // the guest's blocking of SIGSEGV and SIGBUS (not on the host's mask).
  std::optional<std::string> argv0;
  while (arg == "--argv0" || arg == "--rootfs" || arg == "--blocked-signals") {
    if (first + 2 >= argc) throw Error(ErrorCode::PHYBIN_ERR_USAGE, arg + " needs a value and a program");
    if (arg == "--argv0") argv0 = argv[first + 1];
    else if (arg == "--rootfs") settings.rootfs = checked_rootfs(argv[first + 1], "--rootfs");
    else settings.blocked_runtime_signals = checked_signal_mask(argv[first + 1]);
    first += 2;
    arg = argv[first];
  }
  // A program whose name starts with '-' comes after "--" (or as ./-name).
  if (arg == "--") {
    if (++first >= argc) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "no program given after --");
  } else if (arg.size() > 1 && arg[0] == '-') {
    usage(stderr);
    throw Error(ErrorCode::PHYBIN_ERR_USAGE, "unknown option " + arg + " (a program named so: phybin -- " + arg + ")");
  }
  std::vector<std::string> guest_argv(argv + first, argv + argc);
  const std::string program = guest_argv[0];
  if (argv0) guest_argv[0] = *argv0;
  else warn_unhonoured_settings();
  run_program(settings, program, guest_argv);
}

}  // namespace
}  // namespace phybin::app

int main(int argc, char** argv) {
  try {
    return phybin::app::main_impl(argc, argv);
  } catch (const phybin::Error& e) {
    phybin::fatal(e.code(), e.what());
  }
}
