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

#include "app/commands.h"
#include "app/config.h"
#include "app/setup.h"
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
               "       phybin info [PROGRAM]        the host, forwarded libraries, binfmt_misc, and every\n"
               "                                  setting in force (for PROGRAM) with where it came from\n"
               "       phybin scan [--json] [--details] [--threads N] FILE|DIR|WHEEL...\n"
               "                                  whether x86-64 files will run, without running them: the\n"
               "                                  x86-64 level, instructions phybin cannot translate, libraries\n"
               "                                  (exit status 0: all will run, 1: some will not)\n"
               "       phybin register | unregister | status\n"
               "                                  binfmt_misc: start x86-64 programs through phybin (root)\n"
               "       phybin --help | --help-errors | --version\n"
               "settings: PHYBIN_* environment variables, over ~/.config/phybin/phybin.conf, over\n"
               "/etc/phybin.conf (NAME = VALUE lines; [PROGRAM] sections apply to one program):\n");
  for (const SettingInfo& s : known_settings()) {
    std::string text = s.default_text;
    std::erase(text, '`');  // Markdown in README's table
    std::fprintf(out, "  %s (default %s)\n", s.name, text.c_str());
  }
  std::fprintf(out, "error codes: phybin --help-errors\n");
}

std::string absolute_path(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  return path;
}

// The guest exits (exit_group, or a signal phybin delivers kills it), on
// its guest thread.  The Linux layer flushes phybin's streams after it
// (once: a flush of every stream is 190 instructions of each forked child).
void before_exit(int) {
  if (runtime::GuestThread* thread = runtime::GuestThread::current()) {
    thread->process().log_stats();
    thread->process().save_translations();
    thread->process().flush_perf_map();
    thread->process().report_profile(sys::process().config.guest_exe_path);
  }
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
  // Profiled code counts its runs at addresses of this run only.
  persist.dir = settings.profile.empty() ? settings.translation_dir : std::string();
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
// interpreter's and its stack.  Not the guard page below the stack: the
// host has it PROT_NONE so that nothing else lands there, but to the guest
// it is the kernel's guard gap, no mapping (an overflow is SEGV_MAPERR).
void record_initial_mappings(const LoadedProgram& program, const elf::StackInfo& stack, bool executable_stack,
                             const sys::GuestRoot& root) {
  sys::AddressSpace& space = sys::process().address_space;
  record_image(space, program.image, root);
  if (program.interpreter) record_image(space, *program.interpreter, root);
  sys::AddressSpace::Source stack_source;
  stack_source.name = "[stack]";
  space.map(stack.stack_low, stack.mapping_start + stack.mapping_size - stack.stack_low,
            PROT_READ | PROT_WRITE | (executable_stack ? PROT_EXEC : 0), stack_source);
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
  stack.hwcap2 = x86::at_hwcap2();
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
  process.hold_code_readers = &runtime::hold_code_readers;
  process.host_signal_handler = &runtime::host_signal_handler;
  process.fxsave = &runtime::save_fpu_state;
  process.fxrstor = &runtime::restore_fpu_state;
  process.set_mxcsr = &runtime::set_guest_mxcsr;
  process.start_thread = &runtime::start_guest_thread;
  process.exit_thread = &runtime::exit_guest_thread;
  static forward::Forwarder forwarder(forwarder_options(settings, process.phybin_path));
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
  options.fp_regions = settings.fp_regions;
  options.host_lse = settings.host_lse;
  options.perf_map = settings.perf_map;
  options.perf_map_append = settings.execed;
  options.profile = settings.profile;
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
void warn_unhonoured_settings(const Settings& settings) {
  if (!settings.warp_size.empty())
    logf(LogLevel::Error,
         "phybin: warning: PHYBIN_WARP_SIZE=%s cannot be honoured: a wavefront's size (32 or 64 lanes) is fixed by the GPU "
         "code object and the device, not by a translator (HIP reports it in hipDeviceProp_t.warpSize)",
         settings.warp_size.c_str());
  if (const char* v = std::getenv("HIP_PLATFORM"); v && std::strcmp(v, "phybin") == 0)
    logf(LogLevel::Error,
         "phybin: warning: HIP_PLATFORM=phybin has no effect of its own: HIP calls are forwarded to the native runtime "
         "unless PHYBIN_FORWARD leaves hip out; AMD's tools (hipcc) know only amd and nvidia");
}

// How phybin was asked to run a program, besides its settings.
struct Start {
  std::optional<std::string> rootfs;    // --rootfs
  uint64_t blocked_runtime_signals = 0;  // --blocked-signals
  bool execed = false;  // by phybin's own execve (--argv0): the warnings were said already
};

// The settings for `program` (its sections of the settings files), the
// log, then the run.
[[noreturn]] void start(const std::string& program, const std::vector<std::string>& guest_argv, const Start& how) {
  Settings settings = read_settings(program);
  log_configure(settings.log_level, settings.log_file);
  // A program the guest execs has the same environment: warned once.
  for (const SettingsNote& note : settings.notes)
    if (!how.execed || note.level != static_cast<int>(LogLevel::Warn))
      log_line(static_cast<LogLevel>(note.level), note.text);
  if (how.rootfs) settings.rootfs = *how.rootfs;
  settings.blocked_runtime_signals = how.blocked_runtime_signals;
  settings.execed = how.execed;
  if (!how.execed) warn_unhonoured_settings(settings);
  run_program(settings, program, guest_argv);
}

// phybin's own commands; nullopt for a program to run.
std::optional<int> run_command(const std::string& arg, int argc, char** argv, int first) {
  const int extra = argc - first - 1;
  if (arg == "--help" || arg == "-h") {
    usage(stdout);
    return 0;
  }
  if (arg == "--version") {
    std::printf("phybin %s\n", kVersion);
    return 0;
  }
  if (arg == "--help-errors") {
    std::printf("phybin stops on an error of its own with \"phybin: error 0xCODE (NAME): reason\" and exits with\n"
                "0x70 + the code's last digit (the program's own exit status otherwise):\n");
    for (const ErrorInfo& e : kErrorTable)
      std::printf("\n0x%X %s (exit status %d): %s.\n  %s\n", static_cast<unsigned>(e.code), e.name,
                  error_exit_status(e.code), e.summary, e.advice);
    return 0;
  }
  if (arg == "info") {
    if (extra > 1) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "phybin info takes at most one program");
    return run_info(extra == 1 ? argv[first + 1] : "");
  }
  if (arg == "scan") return run_scan(argc, argv, first + 1);
  if (arg == "binfmt-support-entry") {  // for scripts/package
    if (extra != 1) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "phybin binfmt-support-entry INTERPRETER");
    return print_binfmt_support_entry(argv[first + 1]);
  }
  if (arg == "register" || arg == "unregister" || arg == "status") {
    if (extra != 0) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "phybin " + arg + " takes no arguments");
    return arg == "register" ? run_register() : arg == "unregister" ? run_unregister() : run_status();
  }
  return std::nullopt;
}

// Started by binfmt_misc (flag P) as phybin-binfmt: PATH ARGV0 ARGS...
bool started_by_binfmt(const char* argv0) {
  const char* slash = std::strrchr(argv0, '/');
  return std::strcmp(slash ? slash + 1 : argv0, kBinfmtInterpreterName) == 0;
}

int main_impl(int argc, char** argv) {
  if (argc >= 3 && started_by_binfmt(argv[0])) start(argv[1], {argv + 2, argv + argc}, Start{});
  int first = 1;
  const bool run = first < argc && std::strcmp(argv[first], "run") == 0;
  if (run) ++first;
  if (first >= argc) {
    usage(stderr);
    throw Error(ErrorCode::PHYBIN_ERR_USAGE, "no program given");
  }
  std::string arg = argv[first];
  if (!run || arg[0] == '-')
    if (const std::optional<int> status = run_command(arg, argc, argv, first)) return *status;
  // execve of an x86-64 program (sys_exec.cpp) passes the guest's argv[0],
  // the x86-64 root (which the guest's environment may have dropped) and
  // the guest's blocking of SIGSEGV and SIGBUS (not on the host's mask).
  std::optional<std::string> argv0;
  Start how;
  while (arg == "--argv0" || arg == "--rootfs" || arg == "--blocked-signals") {
    if (first + 2 >= argc) throw Error(ErrorCode::PHYBIN_ERR_USAGE, arg + " needs a value and a program");
    if (arg == "--argv0") argv0 = argv[first + 1];
    else if (arg == "--rootfs") how.rootfs = checked_rootfs(argv[first + 1], "--rootfs");
    else how.blocked_runtime_signals = checked_signal_mask(argv[first + 1]);
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
  how.execed = argv0.has_value();
  if (argv0) guest_argv[0] = *argv0;
  start(program, guest_argv, how);
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
