// Runs a guest system call through the Linux layer as translated code does:
// the number in RAX, the arguments in RDI, RSI, RDX, R10, R8, R9, the
// result (or -errno) back in RAX.
#pragma once

#include <cstdint>

#include "common/guest_state.h"
#include "linux/syscalls.h"

namespace phybin::sys {

inline int64_t guest_syscall(GuestState& st, uint64_t nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0,
                             uint64_t a3 = 0, uint64_t a4 = 0, uint64_t a5 = 0) {
  st.gpr[RAX] = nr;
  st.gpr[RDI] = a0;
  st.gpr[RSI] = a1;
  st.gpr[RDX] = a2;
  st.gpr[R10] = a3;
  st.gpr[R8] = a4;
  st.gpr[R9] = a5;
  handle_syscall(st);
  return static_cast<int64_t>(st.gpr[RAX]);
}

// The same with a fresh guest state.
inline int64_t guest_syscall(uint64_t nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0,
                             uint64_t a4 = 0, uint64_t a5 = 0) {
  GuestState st{};
  return guest_syscall(st, nr, a0, a1, a2, a3, a4, a5);
}

// A pointer as a guest system call argument.
template <typename T>
uint64_t addr(T* pointer) {
  return reinterpret_cast<uint64_t>(pointer);
}

}  // namespace phybin::sys
