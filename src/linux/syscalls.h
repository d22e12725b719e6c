// phybin's Linux layer: runs the x86-64 guest's system calls on the host
// kernel.  The runtime calls handle_syscall() when translated code reaches
// a `syscall` instruction; this layer knows nothing of instruction
// encodings.  Guest memory is host memory at the same addresses.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/guest_state.h"
#include "ir/native_call.h"
#include "linux/address_space.h"
#include "linux/guest_root.h"
#include "linux/x86_abi.h"

namespace phybin::sys {

// What the loader and runtime tell the Linux layer before the guest runs.
// A clone that starts a thread (CLONE_VM | CLONE_THREAD), in x86-64's
// argument order already sorted out.
struct ThreadStart {
  uint64_t flags = 0;
  uint64_t stack = 0;       // the child's RSP; 0: the parent's
  uint64_t parent_tid = 0;  // CLONE_PARENT_SETTID: the TID is stored there
  uint64_t child_tid = 0;   // CLONE_CHILD_SETTID / CLONE_CHILD_CLEARTID
  uint64_t tls = 0;         // CLONE_SETTLS: the child's FS base
};

// Calls the guest makes into forwarded native libraries (src/forward owns
// them): the private system calls their guest-side libraries make, and
// which guest file names such a library answers to.
// A guest fork (clone without CLONE_VM), on the forking thread: Prepare
// takes what other threads may hold, Parent and Child give it back after
// the host's fork; in the Child the forking thread is the only one.
enum class ForkStage { Prepare, Parent, Child };

class ForwardedCalls {
 public:
  // The numbers: no Linux system call ("ph"); a real kernel answers ENOSYS.
  static constexpr uint32_t kFirst = 0x70680000, kCount = 0x10000;
  virtual ~ForwardedCalls() = default;
  // The host file to open instead of `path` (a forwarded library's
  // guest side), or nullptr.
  virtual const char* library_for(const char* path) = 0;
  // Makes call `index`, setting the guest's result registers.  The
  // runtime calls it for numbers from kFirst on, instead of handle_syscall
  // (a function's result is not -errno: no retry applies).
  virtual void call(GuestState& st, uint32_t index) = 0;
  // At translation: whether call `index` can be made straight from
  // translated code (every argument in a register, nothing to convert),
  // and how (ir CallNative).
  virtual bool direct_shape(uint32_t index, ir::NativeCallShape& shape) = 0;
  // The functions such calls reach, by index (GuestState::forward_table):
  // kCount slots, each empty until the function's first call has found it
  // (the call then goes the system call way).
  virtual const void* const* direct_table() = 0;
  // Its locks and threads around a guest fork (ForkStage).
  virtual void on_fork(ForkStage stage) = 0;
  // PHYBIN_PROFILE: the calls made, by function, most first.
  virtual std::vector<std::pair<std::string, uint64_t>> call_counts() const = 0;
};

struct ProcessConfig {
  // The guest executable's path as the guest sees it: the answer to
  // readlink("/proc/self/exe") (and what AT_EXECFN should point to).
  std::string guest_exe_path;
  // phybin's own executable: execve of an x86-64 program starts it again.
  std::string phybin_path;
  // Where the guest's absolute file names lead (PHYBIN_ROOTFS).
  GuestRoot root;
  // What the guest reads from /proc/cpuinfo (the CPU CPUID presents; made
  // when opened) and /proc/self/auxv (its auxiliary vector, AT_NULL
  // included); unset or empty: the host's files.
  std::string (*cpuinfo)() = nullptr;
  std::vector<uint8_t> auxv;
  // The first program break: the end of the guest's bss (or a randomised
  // address above it), chosen by the loader.  0 means no brk heap: brk then
  // always answers 0 and glibc's malloc falls back to mmap.
  uint64_t initial_brk = 0;
  // Called after guest memory was unmapped, remapped, replaced or changed
  // protection, so the runtime can drop translations of that range.
  void (*invalidate_code)(uint64_t start, uint64_t length) = nullptr;
  // Held (true) across a call that may take guest memory away or change
  // its protection, from before the host's call to after invalidate_code:
  // meanwhile no thread reads guest code to translate it (it would fault
  // inside phybin on a page another thread unmaps).
  void (*hold_code_readers)(bool hold) = nullptr;
  // Called by exit/exit_group just before the process ends (profiles,
  // perf maps); the status is the guest's exit status.
  void (*before_exit)(int status) = nullptr;
  // The runtime's host handler for signals the guest handles: installed on
  // the host when the guest installs a handler (rt_sigaction).  Without it
  // guest handlers are only recorded.
  void (*host_signal_handler)(int sig, siginfo_t* info, void* ucontext) = nullptr;
  // The guest's x87/SSE state to and from an FXSAVE image, and setting
  // MXCSR: what signal frames need of the x86 layer (signal_delivery.cpp).
  void (*fxsave)(GuestState& st, void* image) = nullptr;
  void (*fxrstor)(GuestState& st, const void* image) = nullptr;
  void (*set_mxcsr)(GuestState& st, uint32_t mxcsr) = nullptr;
  // clone of a thread: starts a guest thread whose state is `parent`'s,
  // returning 0 from the call at its next instruction; returns the new
  // thread's TID (after CLONE_PARENT_SETTID and CLONE_CHILD_SETTID are
  // done), or -errno.  Without it such a clone fails with ENOSYS.
  int64_t (*start_thread)(GuestState& parent, const ThreadStart& start) = nullptr;
  // exit (not exit_group) of the guest thread `st`: ends the thread, or
  // returns when it is the last one (the process then exits).
  void (*exit_thread)(GuestState& st) = nullptr;
  // Forwarded libraries; without it their numbers are unknown calls.
  ForwardedCalls* forwarded = nullptr;
  // Runs the guest from st.rip until it reaches `stop` (a return address
  // the caller pushed), on the calling thread, which is inside a forwarded
  // call: a native library calling back into the guest.
  void (*run_guest_call)(GuestState& st, uint64_t stop) = nullptr;
  // The guest state of the guest thread running on this host thread, or
  // nullptr on a thread of phybin's or a native library's.
  GuestState* (*current_guest_state)() = nullptr;
  // The runtime's part of a guest fork (ForkStage): its tables' lock, and
  // in the child the list of guest threads.
  void (*on_fork)(ForkStage stage) = nullptr;
};

// The guest process as the Linux layer keeps it.  One per process; the
// per-thread parts (tid address, robust list) move to a thread object
// once guest threads exist.
struct ProcessInfo {
  ProcessConfig config;
  uint64_t page_size = 4096;  // host page size: brk and MAP_32BIT granularity
  // What the guest mapped: the loader's image and stack (added by the
  // caller of init_process) and every mmap-family call since.
  AddressSpace address_space;

  // Emulated program break: the kernel's brk belongs to phybin itself.
  uint64_t brk_start = 0;       // lowest break the guest may ask for
  uint64_t brk_current = 0;     // what brk() answers
  uint64_t brk_mapped_end = 0;  // end of the pages backing [brk_start, brk_current)

  // Recorded, not registered with the host (sys_process.cpp); one for the
  // process, whose threads all use glibc's the same way.
  uint64_t robust_list_head = 0;
  uint64_t robust_list_len = 0;

  // The guest's view of its signal dispositions ([0] unused), shared by
  // its threads (signal_delivery.cpp delivers to guest handlers).
  X86KernelSigaction signal_actions[kX86NumSignals + 1] = {};
};

// SIGSEGV and SIGBUS stay unblocked on the host (the runtime needs them for
// its own faults): the guest's blocking of them is kept here, per guest
// thread as signal masks are (each guest thread runs on a host thread of
// its own), and the runtime keeps those sent while blocked (rt_sigpending
// shows them).
struct ThreadSignals {
  uint64_t blocked_runtime_signals = 0;
  uint64_t held_runtime_signals = 0;
  // The thread's alternate signal stack (a new thread has none, as on Linux).
  X86StackT alt_stack = {0, kX86SsDisable, 0, 0};
};
ThreadSignals& thread_signals();

// Sets up the process state; call once, before the first system call.
void init_process(const ProcessConfig& config);
// Runs ProcessConfig::before_exit: the process is about to end (also when
// a signal kills the guest).
void before_process_exit(int status);
ProcessInfo& process();

// Maps `bytes` (whole pages) of guest code phybin made (entries into
// forwarded functions) where the guest can run it, read-only and
// executable, and records it in the guest's address space; 0 when out of
// memory.
uint64_t map_guest_code(const void* code, size_t bytes);

// Runs the system call whose x86-64 number is in RAX with the arguments
// in RDI, RSI, RDX, R10, R8, R9 and puts the result (or -errno) in RAX.
// exit and exit_group do not return.  RCX and R11 are the translator's.
// With `interrupt` (the runtime's "guest signal pending" flag), a call
// that would block does not start while the flag is set, nor when a signal
// arrives just before it starts: RAX is then kSyscallNotStarted and the
// call has had no effect (the runtime delivers the signal and runs the
// call again).
void handle_syscall(GuestState& st, const volatile sig_atomic_t* interrupt = nullptr);

// `int 0x80`: rewrites the i386 system call in `st` (number in EAX,
// arguments in EBX, ECX, EDX, ESI, EDI, EBP) into the x86-64 call that does
// the same, for handle_syscall.  False when phybin does not cover it (the
// caller answers -ENOSYS).  ia32_syscalls.cpp lists the calls.
bool ia32_call_as_x86_64(GuestState& st);

// PHYBIN_PROFILE: from now on system calls are counted by number; the
// counts so far, by name, most first.
void count_syscalls();
std::vector<std::pair<std::string, uint64_t>> syscall_counts();
constexpr int64_t kSyscallNotStarted = -512;  // the kernel's internal ERESTARTSYS

// In the host handler of a guest signal, with the interrupted context's
// pc and x0..x30: when the thread is between the flag check and the start
// of such a call, moves `pc` to the call's "not started" exit and returns
// true.
bool rewind_unstarted_syscall(uint64_t& pc, const unsigned long long* regs);

// The x86-64 name of system call `number` ("read"), or nullptr.
const char* x86_syscall_name(uint64_t number);

// The guest's blocked-signal mask (bit sig-1), and setting it: the host's
// mask, except that SIGSEGV and SIGBUS are never blocked on the host.
uint64_t guest_signal_mask();
void set_guest_signal_mask(uint64_t mask);

// Resets the guest's disposition of `sig` to SIG_DFL, on the host too
// (SA_RESETHAND after a delivery).
void reset_guest_signal_action(int sig);

}  // namespace phybin::sys
