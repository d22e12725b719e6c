// `int 0x80` from 64-bit code: the i386 system call, as an x86-64 kernel
// with IA32 emulation (Debian's default) runs it.  The number is EAX, the
// arguments EBX, ECX, EDX, ESI, EDI, EBP, each taken as 32 bits: pointers
// reach only the low 4 GiB.  Covered are the calls whose i386 form is the
// x86-64 call with zero-extended arguments (no struct, no 64-bit offset,
// no 16-bit IDs); every other number answers -ENOSYS.
#include <cerrno>
#include <cstdint>

#include "linux/syscalls.h"
#include "linux/x86_abi.h"

namespace phybin::sys {

namespace {

struct Ia32Call {
  uint32_t ia32_nr;
  uint32_t x86_64_nr;
};

// The i386 numbers (arch/x86/entry/syscalls/syscall_32.tbl).
constexpr Ia32Call kIa32Calls[] = {
    {1, X86_NR_exit},         {3, X86_NR_read},        {4, X86_NR_write},        {6, X86_NR_close},
    {10, X86_NR_unlink},      {12, X86_NR_chdir},      {20, X86_NR_getpid},      {27, X86_NR_alarm},
    {29, X86_NR_pause},       {36, X86_NR_sync},       {37, X86_NR_kill},        {39, X86_NR_mkdir},
    {40, X86_NR_rmdir},       {41, X86_NR_dup},        {42, X86_NR_pipe},        {60, X86_NR_umask},
    {63, X86_NR_dup2},        {64, X86_NR_getppid},    {65, X86_NR_getpgrp},     {66, X86_NR_setsid},
    {118, X86_NR_fsync},      {133, X86_NR_fchdir},    {147, X86_NR_getsid},     {148, X86_NR_fdatasync},
    {158, X86_NR_sched_yield}, {199, X86_NR_getuid},   {200, X86_NR_getgid},     {201, X86_NR_geteuid},
    {202, X86_NR_getegid},    {224, X86_NR_gettid},    {238, X86_NR_tkill},      {252, X86_NR_exit_group},
    {270, X86_NR_tgkill},
};

}  // namespace

bool ia32_call_as_x86_64(GuestState& st) {
  const auto nr = static_cast<uint32_t>(st.gpr[RAX]);
  for (const Ia32Call& call : kIa32Calls) {
    if (call.ia32_nr != nr) continue;
    const uint64_t args[6] = {st.gpr[RBX] & 0xffffffff, st.gpr[RCX] & 0xffffffff, st.gpr[RDX] & 0xffffffff,
                              st.gpr[RSI] & 0xffffffff, st.gpr[RDI] & 0xffffffff, st.gpr[RBP] & 0xffffffff};
    st.gpr[RAX] = call.x86_64_nr;
    st.gpr[RDI] = args[0];
    st.gpr[RSI] = args[1];
    st.gpr[RDX] = args[2];
    st.gpr[R10] = args[3];
    st.gpr[R8] = args[4];
    st.gpr[R9] = args[5];
    return true;
  }
  return false;
}

}  // namespace phybin::sys
