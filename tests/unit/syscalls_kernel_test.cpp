// Calls the Linux layer passes to the kernel as they are, driven through
// handle_syscall() and compared with the host's own answers (on an x86-64
// host guest and host numbers coincide): the NUMA memory policies and the
// per-thread credentials.  And the i386 calls of `int 0x80`, rewritten into
// their x86-64 twins, with the registers worked out from the i386 ABI.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "guest_syscall.h"
#include "linux/syscalls.h"
#include "linux/x86_abi.h"

namespace phybin::sys {
namespace {

class KernelPassTest : public ::testing::Test {
 protected:
  void SetUp() override { init_process(ProcessConfig{}); }
};

int64_t host(long nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0, uint64_t a4 = 0,
             uint64_t a5 = 0) {
  const long r = syscall(nr, a0, a1, a2, a3, a4, a5);
  return r < 0 ? -errno : r;
}

constexpr int kMpolDefault = 0, kMpolBind = 2;
constexpr unsigned long kMpolFAddr = 2, kMpolFNode = 1;

TEST_F(KernelPassTest, MemoryPolicyOfTheThread) {
  int guest_mode = -1, host_mode = -1;
  unsigned long guest_mask[16] = {}, host_mask[16] = {};
  const int64_t g = guest_syscall(X86_NR_get_mempolicy, addr(&guest_mode), addr(guest_mask), 1024, 0, 0);
  const int64_t h = host(SYS_get_mempolicy, addr(&host_mode), addr(host_mask), 1024, 0, 0);
  ASSERT_EQ(g, h);
  EXPECT_EQ(guest_mode, host_mode);
  EXPECT_EQ(0, std::memcmp(guest_mask, host_mask, sizeof guest_mask));
  EXPECT_EQ(guest_syscall(X86_NR_set_mempolicy, kMpolDefault, 0, 0), host(SYS_set_mempolicy, kMpolDefault, 0, 0));
  EXPECT_EQ(guest_syscall(X86_NR_set_mempolicy, 99, 0, 0), host(SYS_set_mempolicy, 99, 0, 0));
}

TEST_F(KernelPassTest, MemoryPolicyOfAMapping) {
  constexpr size_t kBytes = 4 * 4096;
  auto* page = static_cast<char*>(mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(page, MAP_FAILED);
  std::memset(page, 1, kBytes);
  unsigned long node0 = 1;
  const int64_t bound = guest_syscall(X86_NR_mbind, addr(page), kBytes, kMpolBind, addr(&node0), 64, 0);
  EXPECT_EQ(bound, host(SYS_mbind, addr(page), kBytes, kMpolBind, addr(&node0), 64, 0));
  int guest_mode = -1, host_mode = -1;
  EXPECT_EQ(guest_syscall(X86_NR_get_mempolicy, addr(&guest_mode), 0, 0, addr(page), kMpolFAddr),
            host(SYS_get_mempolicy, addr(&host_mode), 0, 0, addr(page), kMpolFAddr));
  EXPECT_EQ(guest_mode, host_mode);
  if (bound == 0) {
    EXPECT_EQ(guest_mode, kMpolBind);
  }
  EXPECT_EQ(guest_syscall(X86_NR_get_mempolicy, addr(&guest_mode), 0, 0, addr(page), kMpolFAddr | kMpolFNode),
            host(SYS_get_mempolicy, addr(&host_mode), 0, 0, addr(page), kMpolFAddr | kMpolFNode));
  EXPECT_EQ(guest_mode, host_mode);
  void* pages[2] = {page, page + 4096};
  int guest_status[2] = {-99, -99}, host_status[2] = {-99, -99};
  EXPECT_EQ(guest_syscall(X86_NR_move_pages, 0, 2, addr(pages), 0, addr(guest_status), 0),
            host(SYS_move_pages, 0, 2, addr(pages), 0, addr(host_status), 0));
  EXPECT_EQ(guest_status[0], host_status[0]);
  EXPECT_EQ(guest_status[1], host_status[1]);
  EXPECT_EQ(guest_syscall(X86_NR_migrate_pages, 0, 64, addr(&node0), addr(&node0)),
            host(SYS_migrate_pages, 0, 64, addr(&node0), addr(&node0)));
  EXPECT_EQ(guest_syscall(X86_NR_set_mempolicy_home_node, addr(page), 4096, 0, 0),
            host(SYS_set_mempolicy_home_node, addr(page), 4096, 0, 0));
  munmap(page, kBytes);
}

// Setting the IDs the thread already has changes nothing, with or without
// privilege; what comes back must be the kernel's answer, not ENOSYS.
TEST_F(KernelPassTest, CredentialsAreTheKernels) {
  const uint64_t uid = getuid(), gid = getgid();
  EXPECT_EQ(guest_syscall(X86_NR_setresuid, ~0ull, ~0ull, ~0ull), 0);
  EXPECT_EQ(guest_syscall(X86_NR_setresgid, ~0ull, ~0ull, ~0ull), 0);
  EXPECT_EQ(guest_syscall(X86_NR_setuid, uid), 0);
  EXPECT_EQ(guest_syscall(X86_NR_setgid, gid), 0);
  EXPECT_EQ(guest_syscall(X86_NR_setreuid, ~0ull, ~0ull), 0);
  EXPECT_EQ(guest_syscall(X86_NR_setregid, ~0ull, ~0ull), 0);
  EXPECT_EQ(guest_syscall(X86_NR_setfsuid, ~0ull), static_cast<int64_t>(uid));  // answers the old fsuid
  EXPECT_EQ(guest_syscall(X86_NR_setfsgid, ~0ull), static_cast<int64_t>(gid));
  gid_t groups[64];
  const int n = getgroups(64, groups);
  ASSERT_GE(n, 0);
  EXPECT_EQ(guest_syscall(X86_NR_setgroups, static_cast<uint64_t>(n), addr(groups)),
            host(SYS_setgroups, static_cast<uint64_t>(n), addr(groups)));
  struct {
    uint32_t version;
    int pid;
  } header{0x20080522, 0};  // _LINUX_CAPABILITY_VERSION_3
  uint32_t guest_caps[6] = {}, host_caps[6] = {};
  EXPECT_EQ(guest_syscall(X86_NR_capget, addr(&header), addr(guest_caps)), 0);
  header.version = 0x20080522;
  EXPECT_EQ(host(SYS_capget, addr(&header), addr(host_caps)), 0);
  EXPECT_EQ(0, std::memcmp(guest_caps, host_caps, sizeof guest_caps));
}

// int 0x80's registers: EAX the number, EBX ECX EDX ESI EDI EBP the
// arguments, each cut to 32 bits, into the x86-64 call's RAX, RDI, RSI, RDX,
// R10, R8, R9.
TEST(Ia32Calls, WriteBecomesTheX86_64Write) {
  GuestState st{};
  st.gpr[RAX] = 0xffffffff00000004;  // i386 write; the upper half is not the number's
  st.gpr[RBX] = 0x1234567800000001;
  st.gpr[RCX] = 0xffffffff00401000;
  st.gpr[RDX] = 20;
  st.gpr[RSI] = 0xaaaaaaaa00000005;
  st.gpr[RDI] = 6;
  st.gpr[RBP] = 0x700000007;
  ASSERT_TRUE(ia32_call_as_x86_64(st));
  EXPECT_EQ(st.gpr[RAX], X86_NR_write);
  EXPECT_EQ(st.gpr[RDI], 1u);
  EXPECT_EQ(st.gpr[RSI], 0x401000u);
  EXPECT_EQ(st.gpr[RDX], 20u);
  EXPECT_EQ(st.gpr[R10], 5u);
  EXPECT_EQ(st.gpr[R8], 6u);
  EXPECT_EQ(st.gpr[R9], 7u);
}

TEST(Ia32Calls, NumbersAreI386s) {
  const std::pair<uint64_t, uint64_t> pairs[] = {{1, X86_NR_exit},         {3, X86_NR_read},
                                                 {20, X86_NR_getpid},      {199, X86_NR_getuid},
                                                 {224, X86_NR_gettid},     {252, X86_NR_exit_group},
                                                 {270, X86_NR_tgkill}};
  for (const auto& [ia32, x86_64] : pairs) {
    GuestState st{};
    st.gpr[RAX] = ia32;
    ASSERT_TRUE(ia32_call_as_x86_64(st)) << ia32;
    EXPECT_EQ(st.gpr[RAX], x86_64) << ia32;
  }
  // open (5: flags without O_LARGEFILE's meaning), the 16-bit getuid (24),
  // mmap (90: a struct), an unknown number, -1: not covered.
  for (uint64_t ia32 : {5ull, 24ull, 90ull, 9999ull, 0xffffffffull}) {
    GuestState st{};
    st.gpr[RAX] = ia32;
    EXPECT_FALSE(ia32_call_as_x86_64(st)) << ia32;
    EXPECT_EQ(st.gpr[RAX], ia32);
  }
}

}  // namespace
}  // namespace phybin::sys
