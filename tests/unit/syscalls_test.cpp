// Tests of the Linux layer (src/linux): guest system calls driven through
// handle_syscall() with a GuestState, compared with the host's own calls.
// These run on an x86-64 host, where guest and host ABIs coincide, so the
// pure converters are also tested with AArch64's values written by hand.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/log.h"
#include "linux/abi_convert.h"
#include "linux/syscalls.h"
#include "guest_syscall.h"

namespace phybin::sys {
namespace {

int64_t sc(uint64_t nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0,
           uint64_t a4 = 0, uint64_t a5 = 0) {
  return guest_syscall(nr, a0, a1, a2, a3, a4, a5);
}

std::vector<std::pair<uint64_t, uint64_t>> g_invalidated;
void record_invalidation(uint64_t start, uint64_t length) {
  g_invalidated.emplace_back(start, length);
}

void say_before_exit(int status) { std::fprintf(stderr, "before_exit %d\n", status); }

// Each test gets a fresh process state and a scratch directory holding a
// file that plays the guest executable.
class SyscallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/phybin-sys-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    exe_ = dir_ + "/guest-exe";
    std::ofstream(exe_) << "guest executable";
    ProcessConfig config;
    config.guest_exe_path = exe_;
    config.invalidate_code = record_invalidation;
    config.before_exit = say_before_exit;
    init_process(config);
    g_invalidated.clear();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
  std::string exe_;
};

// ---- pure converters ---------------------------------------------------

TEST(OpenFlagConversion, X86ToArm64ByHand) {
  EXPECT_EQ(convert_open_flags(0200000, kX86OpenFlags, kArm64OpenFlags), 040000u);   // DIRECTORY
  EXPECT_EQ(convert_open_flags(0400000, kX86OpenFlags, kArm64OpenFlags), 0100000u);  // NOFOLLOW
  EXPECT_EQ(convert_open_flags(040000, kX86OpenFlags, kArm64OpenFlags), 0200000u);   // DIRECT
  EXPECT_EQ(convert_open_flags(0100000, kX86OpenFlags, kArm64OpenFlags), 0400000u);  // LARGEFILE
  // O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC pass unchanged.
  const uint32_t same = 02 | 0100 | 0200 | 04000 | 02000000;
  EXPECT_EQ(convert_open_flags(same | 0200000, kX86OpenFlags, kArm64OpenFlags), same | 040000u);
  // O_TMPFILE is __O_TMPFILE | O_DIRECTORY.
  EXPECT_EQ(convert_open_flags(020000000 | 0200000, kX86OpenFlags, kArm64OpenFlags),
            020000000u | 040000u);
}

TEST(OpenFlagConversion, Arm64ToX86ByHand) {
  EXPECT_EQ(convert_open_flags(040000, kArm64OpenFlags, kX86OpenFlags), 0200000u);
  EXPECT_EQ(convert_open_flags(0100000, kArm64OpenFlags, kX86OpenFlags), 0400000u);
  EXPECT_EQ(convert_open_flags(0200000, kArm64OpenFlags, kX86OpenFlags), 040000u);
  // What F_GETFL gives on AArch64 for open(O_RDWR): the kernel adds O_LARGEFILE.
  EXPECT_EQ(convert_open_flags(0400000 | 02, kArm64OpenFlags, kX86OpenFlags), 0100000u | 02u);
}

TEST(OpenFlagConversion, EveryCombinationRoundTrips) {
  const uint32_t other = 02 | 02000 | 04000 | 02000000;
  for (uint32_t bits = 0; bits < 16; ++bits) {
    uint32_t x86 = other;
    if (bits & 1) x86 |= kX86OpenFlags.direct;
    if (bits & 2) x86 |= kX86OpenFlags.largefile;
    if (bits & 4) x86 |= kX86OpenFlags.directory;
    if (bits & 8) x86 |= kX86OpenFlags.nofollow;
    const uint32_t arm = convert_open_flags(x86, kX86OpenFlags, kArm64OpenFlags);
    EXPECT_EQ(__builtin_popcount(arm), __builtin_popcount(x86));
    EXPECT_EQ(convert_open_flags(arm, kArm64OpenFlags, kX86OpenFlags), x86);
#if defined(__aarch64__)
    EXPECT_EQ(open_flags_to_host(x86), arm);
    EXPECT_EQ(open_flags_to_guest(arm), x86);
#else
    // On an x86-64 host the guest and host layouts coincide.
    EXPECT_EQ(open_flags_to_host(x86), x86);
    EXPECT_EQ(open_flags_to_guest(x86), x86);
#endif
  }
}

TEST(StatConversion, EveryFieldLandsInTheX86Layout) {
  struct stat host {};
  host.st_dev = 0x0102;
  host.st_ino = 0x123456789a;
  host.st_nlink = 3;
  host.st_mode = S_IFREG | 0640;
  host.st_uid = 1001;
  host.st_gid = 1002;
  host.st_rdev = 0x0809;
  host.st_size = 0x1'0000'0001;
  host.st_blksize = 4096;
  host.st_blocks = 77;
  host.st_atim = {1700000001, 11};
  host.st_mtim = {1700000002, 22};
  host.st_ctim = {1700000003, 33};
  const X86Stat x = stat_to_x86(host);
  uint8_t raw[sizeof x];
  std::memcpy(raw, &x, sizeof x);
  auto u64_at = [&](size_t offset) { uint64_t v; std::memcpy(&v, raw + offset, 8); return v; };
  auto u32_at = [&](size_t offset) { uint32_t v; std::memcpy(&v, raw + offset, 4); return v; };
  // Offsets of arch/x86/include/uapi/asm/stat.h, by hand.
  EXPECT_EQ(u64_at(0), 0x0102u);
  EXPECT_EQ(u64_at(8), 0x123456789au);
  EXPECT_EQ(u64_at(16), 3u);
  EXPECT_EQ(u32_at(24), static_cast<uint32_t>(S_IFREG | 0640));
  EXPECT_EQ(u32_at(28), 1001u);
  EXPECT_EQ(u32_at(32), 1002u);
  EXPECT_EQ(u64_at(40), 0x0809u);
  EXPECT_EQ(u64_at(48), 0x100000001u);
  EXPECT_EQ(u64_at(56), 4096u);
  EXPECT_EQ(u64_at(64), 77u);
  EXPECT_EQ(u64_at(72), 1700000001u);
  EXPECT_EQ(u64_at(80), 11u);
  EXPECT_EQ(u64_at(88), 1700000002u);
  EXPECT_EQ(u64_at(96), 22u);
  EXPECT_EQ(u64_at(104), 1700000003u);
  EXPECT_EQ(u64_at(112), 33u);
  EXPECT_EQ(u64_at(120) | u64_at(128) | u64_at(136), 0u);
}

TEST(EpollConversion, RoundTripAndPackedLayout) {
  X86EpollEvent guest{EPOLLIN | EPOLLET, 0x1122334455667788ull};
  const struct epoll_event host = epoll_event_from_x86(guest);
  EXPECT_EQ(host.events, static_cast<uint32_t>(EPOLLIN | EPOLLET));
  EXPECT_EQ(host.data.u64, 0x1122334455667788ull);
  const X86EpollEvent back = epoll_event_to_x86(host);
  EXPECT_EQ(back.events, guest.events);
  EXPECT_EQ(back.data, guest.data);
  // 12 bytes, data right after events (little-endian).
  uint8_t raw[12];
  std::memcpy(raw, &back, sizeof raw);
  EXPECT_EQ(raw[0], static_cast<uint8_t>(EPOLLIN));
  EXPECT_EQ(raw[4], 0x88);
  EXPECT_EQ(raw[11], 0x11);
}

// Appends one linux_dirent64 record, as the kernel lays it out.
void add_dirent64(std::vector<uint8_t>& buf, uint64_t ino, int64_t off, uint8_t type,
                  const std::string& name) {
  const size_t reclen = (19 + name.size() + 1 + 7) & ~size_t{7};
  const size_t at = buf.size();
  buf.resize(at + reclen, 0xAA);  // junk padding, as the kernel may leave
  std::memcpy(&buf[at], &ino, 8);
  std::memcpy(&buf[at + 8], &off, 8);
  const uint16_t len16 = static_cast<uint16_t>(reclen);
  std::memcpy(&buf[at + 16], &len16, 2);
  buf[at + 18] = type;
  std::memcpy(&buf[at + 19], name.c_str(), name.size() + 1);
}

TEST(DirentConversion, Dirent64BecomesOldLinuxDirentInPlace) {
  std::vector<uint8_t> buf;
  add_dirent64(buf, 11, 100, DT_DIR, ".");
  add_dirent64(buf, 12, 200, DT_REG, "abcd");  // name ends exactly where padding starts
  add_dirent64(buf, 13, 300, DT_LNK, "a-longer-name");
  const size_t total = buf.size();
  dirent64_to_x86_dirent(buf.data(), buf.size());
  ASSERT_EQ(buf.size(), total);
  const std::vector<std::tuple<uint64_t, int64_t, uint8_t, std::string>> want = {
      {11, 100, DT_DIR, "."}, {12, 200, DT_REG, "abcd"}, {13, 300, DT_LNK, "a-longer-name"}};
  size_t pos = 0;
  for (const auto& [ino, off, type, name] : want) {
    uint64_t got_ino;
    int64_t got_off;
    uint16_t reclen;
    std::memcpy(&got_ino, &buf[pos], 8);
    std::memcpy(&got_off, &buf[pos + 8], 8);
    std::memcpy(&reclen, &buf[pos + 16], 2);
    EXPECT_EQ(got_ino, ino);
    EXPECT_EQ(got_off, off);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(&buf[pos + 18])), name);
    EXPECT_EQ(buf[pos + reclen - 1], type);
    pos += reclen;
  }
  EXPECT_EQ(pos, total);
}

TEST(SyscallNames, TableCoversTheX86_64Numbers) {
  EXPECT_STREQ(x86_syscall_name(0), "read");
  EXPECT_STREQ(x86_syscall_name(57), "fork");
  EXPECT_STREQ(x86_syscall_name(158), "arch_prctl");
  EXPECT_STREQ(x86_syscall_name(334), "rseq");
  EXPECT_STREQ(x86_syscall_name(435), "clone3");
  EXPECT_STREQ(x86_syscall_name(450), "set_mempolicy_home_node");
  for (uint64_t nr = 0; nr <= 334; ++nr) EXPECT_NE(x86_syscall_name(nr), nullptr) << nr;
  for (uint64_t nr = 424; nr <= 450; ++nr) EXPECT_NE(x86_syscall_name(nr), nullptr) << nr;
  EXPECT_EQ(x86_syscall_name(335), nullptr);
  EXPECT_EQ(x86_syscall_name(9999), nullptr);
}

// ---- descriptors and files -------------------------------------------

TEST_F(SyscallTest, PipeWriteThenReadBack) {
  int fds[2];
  ASSERT_EQ(sc(X86_NR_pipe, addr(fds)), 0);
  const char message[] = "hello, guest";
  EXPECT_EQ(sc(X86_NR_write, fds[1], addr(message), sizeof message), int64_t{sizeof message});
  int available = 0;
  EXPECT_EQ(sc(X86_NR_ioctl, fds[0], FIONREAD, addr(&available)), 0);
  EXPECT_EQ(available, int{sizeof message});
  char got[64] = {};
  EXPECT_EQ(sc(X86_NR_read, fds[0], addr(got), sizeof got), int64_t{sizeof message});
  EXPECT_STREQ(got, message);
  EXPECT_EQ(sc(X86_NR_close, fds[0]), 0);
  EXPECT_EQ(sc(X86_NR_close, fds[1]), 0);
  EXPECT_EQ(sc(X86_NR_close, fds[1]), -EBADF);
}

TEST_F(SyscallTest, OpenWithX86FlagsAndGetThemBack) {
  const std::string file = path("file");
  const int64_t fd = sc(X86_NR_open, addr(file.c_str()), O_CREAT | O_RDWR | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(sc(X86_NR_open, addr(file.c_str()), O_CREAT | O_RDWR | O_EXCL, 0600), -EEXIST);
  // A 64-bit kernel adds O_LARGEFILE; the guest must see x86's value for
  // it, never AArch64's (which is x86's O_NOFOLLOW).  (qemu-user, used to
  // run these tests as AArch64 code, drops the bit, hence no check there.)
  const int64_t flags = sc(X86_NR_fcntl, fd, F_GETFL);
  EXPECT_EQ(flags & O_ACCMODE, O_RDWR);
  EXPECT_FALSE(flags & kX86OpenFlags.nofollow);
#if defined(__x86_64__)
  EXPECT_TRUE(flags & kX86OpenFlags.largefile);
#endif
  EXPECT_EQ(sc(X86_NR_fcntl, fd, F_SETFL, flags | O_APPEND), 0);
  EXPECT_TRUE(sc(X86_NR_fcntl, fd, F_GETFL) & O_APPEND);
  EXPECT_EQ(sc(X86_NR_close, fd), 0);
  // x86's O_DIRECTORY on a regular file, O_NOFOLLOW on a symlink.
  EXPECT_EQ(sc(X86_NR_openat, AT_FDCWD, addr(file.c_str()), kX86OpenFlags.directory), -ENOTDIR);
  const std::string link = path("link");
  ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0);
  EXPECT_EQ(sc(X86_NR_openat, AT_FDCWD, addr(link.c_str()), kX86OpenFlags.nofollow), -ELOOP);
  const int64_t dir_fd = sc(X86_NR_openat, AT_FDCWD, addr(dir_.c_str()), kX86OpenFlags.directory);
  ASSERT_GE(dir_fd, 0);
  EXPECT_EQ(sc(X86_NR_close, dir_fd), 0);
  // creat truncates.
  const int64_t c = sc(X86_NR_creat, addr(file.c_str()), 0600);
  ASSERT_GE(c, 0);
  EXPECT_EQ(sc(X86_NR_write, c, addr("xyz"), 3), 3);
  EXPECT_EQ(sc(X86_NR_close, c), 0);
  EXPECT_EQ(std::filesystem::file_size(file), 3u);
}

TEST_F(SyscallTest, PipeDirectFlagIsPacketMode) {
  int fds[2];
  ASSERT_EQ(sc(X86_NR_pipe2, addr(fds), kX86OpenFlags.direct | O_CLOEXEC), 0);
  EXPECT_TRUE(sc(X86_NR_fcntl, fds[1], F_GETFL) & kX86OpenFlags.direct);
  EXPECT_EQ(sc(X86_NR_fcntl, fds[0], F_GETFD), FD_CLOEXEC);
  // Packet mode: each write is read back as its own message.
  EXPECT_EQ(sc(X86_NR_write, fds[1], addr("ab"), 2), 2);
  EXPECT_EQ(sc(X86_NR_write, fds[1], addr("cde"), 3), 3);
  char got[16];
  EXPECT_EQ(sc(X86_NR_read, fds[0], addr(got), sizeof got), 2);
  close(fds[0]);
  close(fds[1]);
}

void expect_same_stat(const X86Stat& g, const struct stat& h) {
  EXPECT_EQ(g.st_dev, h.st_dev);
  EXPECT_EQ(g.st_ino, h.st_ino);
  EXPECT_EQ(g.st_nlink, h.st_nlink);
  EXPECT_EQ(g.st_mode, h.st_mode);
  EXPECT_EQ(g.st_uid, h.st_uid);
  EXPECT_EQ(g.st_gid, h.st_gid);
  EXPECT_EQ(g.st_rdev, h.st_rdev);
  EXPECT_EQ(g.st_size, h.st_size);
  EXPECT_EQ(g.st_blksize, h.st_blksize);
  EXPECT_EQ(g.st_blocks, h.st_blocks);
  EXPECT_EQ(g.st_mtime_sec, static_cast<uint64_t>(h.st_mtim.tv_sec));
  EXPECT_EQ(g.st_mtime_nsec, static_cast<uint64_t>(h.st_mtim.tv_nsec));
  EXPECT_EQ(g.st_ctime_sec, static_cast<uint64_t>(h.st_ctim.tv_sec));
}

TEST_F(SyscallTest, StatFamilyMatchesTheHost) {
  const char* known = "/etc/passwd";
  struct stat host {};
  ASSERT_EQ(stat(known, &host), 0);
  X86Stat guest{};
  ASSERT_EQ(sc(X86_NR_stat, addr(known), addr(&guest)), 0);
  expect_same_stat(guest, host);

  const int fd = open(known, O_RDONLY);
  X86Stat by_fd{};
  ASSERT_EQ(sc(X86_NR_fstat, fd, addr(&by_fd)), 0);
  expect_same_stat(by_fd, host);
  close(fd);

  X86Stat at{};
  ASSERT_EQ(sc(X86_NR_newfstatat, AT_FDCWD, addr(known), addr(&at), 0), 0);
  expect_same_stat(at, host);

  const std::string link = path("link");
  ASSERT_EQ(symlink(known, link.c_str()), 0);
  X86Stat of_link{};
  ASSERT_EQ(sc(X86_NR_lstat, addr(link.c_str()), addr(&of_link)), 0);
  EXPECT_TRUE(S_ISLNK(of_link.st_mode));
  EXPECT_EQ(sc(X86_NR_stat, addr("/nonexistent/x"), addr(&guest)), -ENOENT);
  EXPECT_EQ(sc(X86_NR_stat, addr(known), 0), -EFAULT);

  struct statx sx {};
  ASSERT_EQ(sc(X86_NR_statx, AT_FDCWD, addr(known), 0, STATX_BASIC_STATS, addr(&sx)), 0);
  EXPECT_EQ(sx.stx_size, static_cast<uint64_t>(host.st_size));
  EXPECT_EQ(sx.stx_ino, host.st_ino);
}

TEST_F(SyscallTest, GetdentsListsTheDirectory) {
  std::ofstream(path("a")) << "1";
  std::ofstream(path("bb")) << "2";
  std::filesystem::create_directory(path("sub"));
  const int64_t fd = sc(X86_NR_open, addr(dir_.c_str()), O_RDONLY | kX86OpenFlags.directory);
  ASSERT_GE(fd, 0);
  alignas(8) uint8_t buf[4096];
  std::map<std::string, uint8_t> seen;
  int64_t n;
  while ((n = sc(X86_NR_getdents, fd, addr(buf), sizeof buf)) > 0) {
    for (int64_t pos = 0; pos < n;) {
      uint16_t reclen;
      std::memcpy(&reclen, buf + pos + 16, 2);
      seen[reinterpret_cast<char*>(buf + pos + 18)] = buf[pos + reclen - 1];
      pos += reclen;
    }
  }
  EXPECT_EQ(n, 0);
  sc(X86_NR_close, fd);
  const std::map<std::string, uint8_t> want = {{".", DT_DIR},  {"..", DT_DIR}, {"a", DT_REG},
                                               {"bb", DT_REG}, {"guest-exe", DT_REG},
                                               {"sub", DT_DIR}};
  EXPECT_EQ(seen, want);
  // A buffer too small for one record.
  const int64_t fd2 = sc(X86_NR_open, addr(dir_.c_str()), O_RDONLY);
  EXPECT_EQ(sc(X86_NR_getdents, fd2, addr(buf), 8), -EINVAL);
  sc(X86_NR_close, fd2);
}

TEST_F(SyscallTest, Dup2OfItselfAnswersTheFd) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(sc(X86_NR_dup2, fds[0], fds[0]), fds[0]);
  EXPECT_EQ(sc(X86_NR_dup2, 999, 999), -EBADF);
  EXPECT_EQ(sc(X86_NR_dup2, fds[1], 200), 200);
  EXPECT_EQ(sc(X86_NR_write, 200, addr("q"), 1), 1);
  EXPECT_EQ(sc(X86_NR_dup3, fds[0], fds[0], 0), -EINVAL);
  close(200);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(SyscallTest, NonblockingReadAndPollAndSelect) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(sc(X86_NR_fcntl, fds[0], F_SETFL, O_NONBLOCK), 0);
  char c;
  EXPECT_EQ(sc(X86_NR_read, fds[0], addr(&c), 1), -EAGAIN);
  struct pollfd p {fds[0], POLLIN, 0};
  EXPECT_EQ(sc(X86_NR_poll, addr(&p), 1, 0), 0);
  struct timeval tv {0, 1000};
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(fds[0], &readable);
  EXPECT_EQ(sc(X86_NR_select, fds[0] + 1, addr(&readable), 0, 0, addr(&tv)), 0);
  EXPECT_EQ(tv.tv_sec, 0);
  EXPECT_EQ(tv.tv_usec, 0);  // the whole timeout was used
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  EXPECT_EQ(sc(X86_NR_poll, addr(&p), 1, -1), 1);
  EXPECT_EQ(p.revents, POLLIN);
  FD_SET(fds[0], &readable);
  EXPECT_EQ(sc(X86_NR_select, fds[0] + 1, addr(&readable), 0, 0, 0), 1);
  EXPECT_TRUE(FD_ISSET(fds[0], &readable));
  tv = {0, -1};
  EXPECT_EQ(sc(X86_NR_select, fds[0] + 1, addr(&readable), 0, 0, addr(&tv)), -EINVAL);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(SyscallTest, EpollDeliversPackedEvents) {
  const int64_t ep = sc(X86_NR_epoll_create, 1);
  ASSERT_GE(ep, 0);
  EXPECT_EQ(sc(X86_NR_epoll_create, 0), -EINVAL);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  X86EpollEvent want{EPOLLIN, 0xfeedface12345678ull};
  ASSERT_EQ(sc(X86_NR_epoll_ctl, ep, EPOLL_CTL_ADD, fds[0], addr(&want)), 0);
  X86EpollEvent got[4] = {};
  EXPECT_EQ(sc(X86_NR_epoll_wait, ep, addr(got), 4, 0), 0);
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  EXPECT_EQ(sc(X86_NR_epoll_wait, ep, addr(got), 4, 1000), 1);
  EXPECT_EQ(got[0].events, static_cast<uint32_t>(EPOLLIN));
  EXPECT_EQ(got[0].data, want.data);
  EXPECT_EQ(got[1].data, 0u);  // nothing written past the first event
  EXPECT_EQ(sc(X86_NR_epoll_pwait, ep, addr(got), 4, 0, 0, 8), 1);
  EXPECT_EQ(sc(X86_NR_epoll_wait, ep, addr(got), 0, 0), -EINVAL);
  EXPECT_EQ(sc(X86_NR_epoll_ctl, ep, EPOLL_CTL_DEL, fds[0], 0), 0);
  EXPECT_EQ(sc(X86_NR_epoll_wait, ep, addr(got), 4, 0), 0);
  close(fds[0]);
  close(fds[1]);
  close(static_cast<int>(ep));
}

TEST_F(SyscallTest, EventfdCounts) {
  const int64_t fd = sc(X86_NR_eventfd2, 3, 0);
  ASSERT_GE(fd, 0);
  uint64_t add = 4, value = 0;
  EXPECT_EQ(sc(X86_NR_write, fd, addr(&add), 8), 8);
  EXPECT_EQ(sc(X86_NR_read, fd, addr(&value), 8), 8);
  EXPECT_EQ(value, 7u);
  close(static_cast<int>(fd));
}

TEST_F(SyscallTest, PathCallsUseTheAtForms) {
  const std::string d = path("d"), e = path("e"), f = path("f"), g = path("g"), l = path("l");
  EXPECT_EQ(sc(X86_NR_mkdir, addr(d.c_str()), 0755), 0);
  EXPECT_TRUE(std::filesystem::is_directory(d));
  EXPECT_EQ(sc(X86_NR_rename, addr(d.c_str()), addr(e.c_str())), 0);
  EXPECT_EQ(sc(X86_NR_access, addr(e.c_str()), F_OK), 0);
  EXPECT_EQ(sc(X86_NR_access, addr(d.c_str()), F_OK), -ENOENT);
  EXPECT_EQ(sc(X86_NR_rmdir, addr(e.c_str())), 0);
  std::ofstream(f) << "data";
  EXPECT_EQ(sc(X86_NR_link, addr(f.c_str()), addr(g.c_str())), 0);
  EXPECT_EQ(std::filesystem::hard_link_count(f), 2u);
  EXPECT_EQ(sc(X86_NR_unlink, addr(g.c_str())), 0);
  EXPECT_EQ(sc(X86_NR_chmod, addr(f.c_str()), 0604), 0);
  EXPECT_EQ(std::filesystem::status(f).permissions(), static_cast<std::filesystem::perms>(0604));
  EXPECT_EQ(sc(X86_NR_chown, addr(f.c_str()), getuid(), getgid()), 0);
  EXPECT_EQ(sc(X86_NR_symlink, addr("target-text"), addr(l.c_str())), 0);
  EXPECT_EQ(sc(X86_NR_lchown, addr(l.c_str()), getuid(), getgid()), 0);
  char buf[64] = {};
  EXPECT_EQ(sc(X86_NR_readlink, addr(l.c_str()), addr(buf), sizeof buf), 11);
  EXPECT_STREQ(buf, "target-text");
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  char guest_cwd[4096];
  EXPECT_EQ(sc(X86_NR_getcwd, addr(guest_cwd), sizeof guest_cwd),
            static_cast<int64_t>(std::strlen(cwd) + 1));
  EXPECT_STREQ(guest_cwd, cwd);
}

TEST_F(SyscallTest, ProcSelfExeIsTheGuestExecutable) {
  char buf[256] = {};
  const int64_t n = sc(X86_NR_readlink, addr("/proc/self/exe"), addr(buf), sizeof buf);
  EXPECT_EQ(n, static_cast<int64_t>(exe_.size()));
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), exe_);
  const std::string by_pid = "/proc/" + std::to_string(getpid()) + "/exe";
  char buf2[256] = {};
  EXPECT_EQ(sc(X86_NR_readlinkat, AT_FDCWD, addr(by_pid.c_str()), addr(buf2), sizeof buf2), n);
  EXPECT_EQ(std::string(buf2), exe_);
  // Truncated like the kernel does, no NUL; a zero size is invalid.
  char small[4] = {'#', '#', '#', '#'};
  EXPECT_EQ(sc(X86_NR_readlink, addr("/proc/self/exe"), addr(small), 3), 3);
  EXPECT_EQ(std::string(small, 4), exe_.substr(0, 3) + "#");
  EXPECT_EQ(sc(X86_NR_readlink, addr("/proc/self/exe"), addr(small), 0), -EINVAL);
  // Opening or stat'ing it reaches the guest's file too.
  const int64_t fd = sc(X86_NR_open, addr("/proc/self/exe"), O_RDONLY);
  ASSERT_GE(fd, 0);
  char content[64] = {};
  EXPECT_EQ(sc(X86_NR_read, fd, addr(content), sizeof content), 16);
  EXPECT_STREQ(content, "guest executable");
  close(static_cast<int>(fd));
  X86Stat st{};
  ASSERT_EQ(sc(X86_NR_stat, addr("/proc/self/exe"), addr(&st)), 0);
  struct stat host {};
  ASSERT_EQ(stat(exe_.c_str(), &host), 0);
  EXPECT_EQ(st.st_ino, host.st_ino);
}

// ---- memory -------------------------------------------------------------

bool page_mapped(uint64_t address) {
  unsigned char vec;
  const long page = sysconf(_SC_PAGESIZE);
  return mincore(reinterpret_cast<void*>(address & ~uint64_t(page - 1)), 1, &vec) == 0;
}

TEST_F(SyscallTest, BrkGrowsAndShrinksInPages) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  // A mapped "bss" page with room above it, as the loader would leave.
  void* region = mmap(nullptr, 64 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  const uint64_t base = addr(region);
  ASSERT_EQ(mprotect(region, page, PROT_READ | PROT_WRITE), 0);
  ProcessConfig config;
  config.initial_brk = base + 100;
  init_process(config);
  // The room is made last: an allocator (ASan's) mapping memory meanwhile
  // could take it.
  ASSERT_EQ(munmap(reinterpret_cast<void*>(base + page), 63 * page), 0);

  EXPECT_EQ(sc(X86_NR_brk, 0), int64_t(base + 100));
  const uint64_t grown = base + 100 + 5 * page;
  EXPECT_EQ(sc(X86_NR_brk, grown), int64_t(grown));
  std::memset(reinterpret_cast<void*>(base + 100), 0x5A, grown - base - 100);  // usable
  EXPECT_TRUE(page_mapped(grown - 1));
  EXPECT_FALSE(page_mapped(base + 6 * page));

  const uint64_t shrunk = base + 100 + 2 * page;
  EXPECT_EQ(sc(X86_NR_brk, shrunk), int64_t(shrunk));
  EXPECT_TRUE(page_mapped(shrunk - 1));
  EXPECT_FALSE(page_mapped(base + 3 * page));
  // Below the start: unchanged.
  EXPECT_EQ(sc(X86_NR_brk, base), int64_t(shrunk));
  // Something in the way: unchanged, and the obstacle untouched.
  void* obstacle = mmap(reinterpret_cast<void*>(base + 20 * page), page, PROT_READ,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_EQ(addr(obstacle), base + 20 * page);
  EXPECT_EQ(sc(X86_NR_brk, base + 30 * page), int64_t(shrunk));
  EXPECT_TRUE(page_mapped(base + 20 * page));
  EXPECT_FALSE(page_mapped(base + 10 * page));
  // Only what the test mapped goes: others may have mapped in the room.
  EXPECT_EQ(sc(X86_NR_brk, base + 100), int64_t(base + 100));
  munmap(obstacle, page);
  munmap(region, page);
}

TEST_F(SyscallTest, BrkWithoutHeapAnswersZero) {
  init_process(ProcessConfig{});
  EXPECT_EQ(sc(X86_NR_brk, 0), 0);
  EXPECT_EQ(sc(X86_NR_brk, 0x10000000), 0);
}

// x86-64 user space ends one page below 2^47: a fixed mapping past it
// fails as on x86-64, a hint past it is no hint.
TEST_F(SyscallTest, MmapStaysInX86UserSpace) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t top = (uint64_t{1} << 47) - 4096;
  EXPECT_EQ(sc(X86_NR_mmap, top - page, 2 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
               static_cast<uint64_t>(-1), 0),
            -ENOMEM);
  EXPECT_EQ(sc(X86_NR_mmap, uint64_t{1} << 47, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
               static_cast<uint64_t>(-1), 0),
            -ENOMEM);
  const int64_t p = sc(X86_NR_mmap, uint64_t{1} << 50, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
                       static_cast<uint64_t>(-1), 0);
  ASSERT_GT(p, 0);
  EXPECT_LE(static_cast<uint64_t>(p) + page, top);
  EXPECT_EQ(sc(X86_NR_munmap, static_cast<uint64_t>(p), page), 0);
}

TEST_F(SyscallTest, MmapProtectUnmapAndInvalidate) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const int64_t p = sc(X86_NR_mmap, 0, 2 * page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_GT(p, 0);
  std::memset(reinterpret_cast<void*>(p), 1, 2 * page);
  EXPECT_EQ(sc(X86_NR_mprotect, p, page, 0x10), -EINVAL);  // not an x86 prot bit
  EXPECT_EQ(sc(X86_NR_mprotect, p, page, PROT_READ), 0);
  EXPECT_EQ(sc(X86_NR_munmap, p, 2 * page), 0);
  const std::vector<std::pair<uint64_t, uint64_t>> want = {{p, page}, {p, 2 * page}};
  EXPECT_EQ(g_invalidated, want);
  EXPECT_FALSE(page_mapped(p));
}

TEST_F(SyscallTest, Map32BitLandsInTheLowWindow) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const int64_t p = sc(X86_NR_mmap, 0, 3 * page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | kX86Map32Bit, -1, 0);
  ASSERT_GT(p, 0);
  EXPECT_GE(uint64_t(p), kX86Map32BitLow);
  EXPECT_LE(uint64_t(p) + 3 * page, kX86Map32BitHigh);
  std::memset(reinterpret_cast<void*>(p), 7, 3 * page);
  // A second one does not overlap the first.
  const int64_t q = sc(X86_NR_mmap, 0, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | kX86Map32Bit,
                       -1, 0);
  ASSERT_GT(q, 0);
  EXPECT_TRUE(uint64_t(q) + page <= uint64_t(p) || uint64_t(q) >= uint64_t(p) + 3 * page);
  EXPECT_LE(uint64_t(q) + page, kX86Map32BitHigh);
  munmap(reinterpret_cast<void*>(p), 3 * page);
  munmap(reinterpret_cast<void*>(q), page);
}

// ---- process, time, signals ----------------------------------------------

TEST_F(SyscallTest, UnameSaysX86_64) {
  X86Utsname u{};
  ASSERT_EQ(sc(X86_NR_uname, addr(&u)), 0);
  EXPECT_STREQ(u.machine, "x86_64");
  EXPECT_STREQ(u.sysname, "Linux");
  struct utsname host {};
  uname(&host);
  EXPECT_STREQ(u.release, host.release);
}

TEST_F(SyscallTest, ArchPrctlSetsAndGetsFsAndGs) {
  GuestState st{};
  EXPECT_EQ(guest_syscall(st, X86_NR_arch_prctl, kX86ArchSetFs, 0x7f0012345000), 0);
  EXPECT_EQ(st.fs_base, 0x7f0012345000u);
  EXPECT_EQ(guest_syscall(st, X86_NR_arch_prctl, kX86ArchSetGs, 0x1234), 0);
  EXPECT_EQ(st.gs_base, 0x1234u);
  uint64_t got = 0;
  EXPECT_EQ(guest_syscall(st, X86_NR_arch_prctl, kX86ArchGetFs, addr(&got)), 0);
  EXPECT_EQ(got, 0x7f0012345000u);
  EXPECT_EQ(guest_syscall(st, X86_NR_arch_prctl, kX86ArchGetGs, addr(&got)), 0);
  EXPECT_EQ(got, 0x1234u);
  EXPECT_EQ(guest_syscall(st, X86_NR_arch_prctl, 0x3001 /* ARCH_CET_STATUS */, addr(&got)),
            -EINVAL);
  EXPECT_EQ(guest_syscall(st, X86_NR_arch_prctl, kX86ArchGetFs, 0), -EFAULT);
}

TEST_F(SyscallTest, ClocksAreSane) {
  struct timespec host {}, guest {};
  clock_gettime(CLOCK_MONOTONIC, &host);
  ASSERT_EQ(sc(X86_NR_clock_gettime, CLOCK_MONOTONIC, addr(&guest)), 0);
  const double diff = (guest.tv_sec - host.tv_sec) + (guest.tv_nsec - host.tv_nsec) * 1e-9;
  EXPECT_GE(diff, 0.0);
  EXPECT_LT(diff, 5.0);
  EXPECT_GE(guest.tv_nsec, 0);
  EXPECT_LT(guest.tv_nsec, 1000000000);
  int64_t t = 0;
  const int64_t now = sc(X86_NR_time, addr(&t));
  EXPECT_EQ(now, t);
  EXPECT_LE(std::abs(now - static_cast<int64_t>(time(nullptr))), 2);
  EXPECT_GT(sc(X86_NR_time, 0), 1600000000);
  struct timeval tv {};
  EXPECT_EQ(sc(X86_NR_gettimeofday, addr(&tv), 0), 0);
  EXPECT_LE(std::abs(tv.tv_sec - now), 2);
  struct timespec res {};
  EXPECT_EQ(sc(X86_NR_clock_getres, CLOCK_MONOTONIC, addr(&res)), 0);
  struct timespec nap {0, 1000000};
  EXPECT_EQ(sc(X86_NR_nanosleep, addr(&nap), 0), 0);
  EXPECT_EQ(sc(X86_NR_clock_nanosleep, CLOCK_MONOTONIC, 0, addr(&nap), 0), 0);
}

TEST_F(SyscallTest, AlarmAnswersTheOldTimer) {
  EXPECT_EQ(sc(X86_NR_alarm, 100), 0);
  EXPECT_EQ(sc(X86_NR_alarm, 0), 100);  // 99.99... rounds to 100
  EXPECT_EQ(sc(X86_NR_alarm, 0), 0);
}

TEST_F(SyscallTest, IdentityAndResources) {
  EXPECT_EQ(sc(X86_NR_getpid), getpid());
  EXPECT_EQ(sc(X86_NR_gettid), gettid());
  EXPECT_EQ(sc(X86_NR_getppid), getppid());
  EXPECT_EQ(sc(X86_NR_getuid), getuid());
  EXPECT_EQ(sc(X86_NR_geteuid), geteuid());
  EXPECT_EQ(sc(X86_NR_getgid), getgid());
  EXPECT_EQ(sc(X86_NR_getegid), getegid());
  EXPECT_EQ(sc(X86_NR_getpgrp), getpgrp());
  EXPECT_EQ(sc(X86_NR_getsid, 0), getsid(0));
  struct rlimit host {}, guest {};
  getrlimit(RLIMIT_NOFILE, &host);
  ASSERT_EQ(sc(X86_NR_getrlimit, RLIMIT_NOFILE, addr(&guest)), 0);
  EXPECT_EQ(guest.rlim_cur, host.rlim_cur);
  EXPECT_EQ(guest.rlim_max, host.rlim_max);
  EXPECT_EQ(sc(X86_NR_setrlimit, RLIMIT_NOFILE, addr(&guest)), 0);
  EXPECT_EQ(sc(X86_NR_wait4, -1, 0, 0, 0), -ECHILD);
  EXPECT_EQ(sc(X86_NR_kill, getpid(), 0), 0);
  uint8_t random[16] = {};
  EXPECT_EQ(sc(X86_NR_getrandom, addr(random), sizeof random, 0), 16);
  uint64_t mask = 0;
  EXPECT_GT(sc(X86_NR_sched_getaffinity, 0, sizeof mask, addr(&mask)), 0);
  EXPECT_NE(mask, 0u);
  unsigned cpu = 9999;
  EXPECT_EQ(sc(X86_NR_getcpu, addr(&cpu), 0, 0), 0);
  EXPECT_LT(cpu, 9999u);
  EXPECT_EQ(sc(X86_NR_sched_yield), 0);
  int futex_word = 5;
  EXPECT_EQ(sc(X86_NR_futex, addr(&futex_word), 0 /* FUTEX_WAIT */, 6, 0), -EAGAIN);
  EXPECT_EQ(sc(X86_NR_futex, addr(&futex_word), 1 /* FUTEX_WAKE */, 1), 0);
}

TEST_F(SyscallTest, ThreadSetupCallsOfGlibc) {
  int tid_word = 0;
  GuestState thread{};
  EXPECT_EQ(guest_syscall(thread, X86_NR_set_tid_address, addr(&tid_word)), gettid());
  EXPECT_EQ(thread.clear_child_tid, addr(&tid_word)) << "per thread: in its guest state";
  uint64_t head[3] = {};
  EXPECT_EQ(sc(X86_NR_set_robust_list, addr(head), 24), 0);
  EXPECT_EQ(process().robust_list_head, addr(head));
  EXPECT_EQ(sc(X86_NR_set_robust_list, addr(head), 10), -EINVAL);
  char name[16] = {};
  EXPECT_EQ(sc(X86_NR_prctl, PR_GET_NAME, addr(name)), 0);
  EXPECT_EQ(sc(X86_NR_prctl, PR_SET_NAME, addr(name)), 0);
  EXPECT_EQ(sc(X86_NR_prctl, PR_SET_MM, 0), -EINVAL);
  // rseq is refused quietly: glibc asks at every start.
  log_configure(1, "");
  testing::internal::CaptureStderr();
  EXPECT_EQ(sc(X86_NR_rseq, 0, 32, 0, 0x53053053), -ENOSYS);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  log_configure(0, "");
}

TEST_F(SyscallTest, RtSigactionRecordsAndAppliesDispositions) {
  X86KernelSigaction ignore{kX86SigIgn, kX86SaRestorer, 0x401000, 0}, old{};
  ASSERT_EQ(sc(X86_NR_rt_sigaction, SIGUSR1, addr(&ignore), addr(&old), 8), 0);
  EXPECT_EQ(old.handler, kX86SigDfl);
  struct sigaction host {};
  sigaction(SIGUSR1, nullptr, &host);
  EXPECT_EQ(host.sa_handler, SIG_IGN);

  log_configure(1, "");
  testing::internal::CaptureStderr();
  X86KernelSigaction handler{0x401234, kX86SaRestorer | SA_SIGINFO, 0x401000, 1u << 3};
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGUSR1, addr(&handler), addr(&old), 8), 0);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("not delivered yet"), std::string::npos);
  log_configure(0, "");
  EXPECT_EQ(old.handler, kX86SigIgn);
  X86KernelSigaction now{};
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGUSR1, 0, addr(&now), 8), 0);
  EXPECT_EQ(now.handler, handler.handler);
  EXPECT_EQ(now.flags, handler.flags);
  EXPECT_EQ(now.restorer, handler.restorer);
  EXPECT_EQ(now.mask, handler.mask);

  X86KernelSigaction dfl{kX86SigDfl, 0, 0, 0};
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGUSR1, addr(&dfl), 0, 8), 0);
  sigaction(SIGUSR1, nullptr, &host);
  EXPECT_EQ(host.sa_handler, SIG_DFL);
  // SIGSEGV's host handler is the runtime's: the guest's SIG_IGN is only recorded.
  struct sigaction segv_before {}, segv_after {};
  sigaction(SIGSEGV, nullptr, &segv_before);
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGSEGV, addr(&ignore), 0, 8), 0);
  sigaction(SIGSEGV, nullptr, &segv_after);
  EXPECT_EQ(segv_after.sa_handler, segv_before.sa_handler);
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGSEGV, 0, addr(&now), 8), 0);
  EXPECT_EQ(now.handler, kX86SigIgn);
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGKILL, addr(&dfl), 0, 8), -EINVAL);
  EXPECT_EQ(sc(X86_NR_rt_sigaction, 0, 0, addr(&now), 8), -EINVAL);
  EXPECT_EQ(sc(X86_NR_rt_sigaction, SIGUSR1, 0, addr(&now), 16), -EINVAL);
}

TEST_F(SyscallTest, RtSigprocmaskPassesTheMask) {
  const uint64_t usr2 = uint64_t{1} << (SIGUSR2 - 1);
  uint64_t old = 0;
  ASSERT_EQ(sc(X86_NR_rt_sigprocmask, SIG_BLOCK, addr(&usr2), addr(&old), 8), 0);
  sigset_t host;
  sigprocmask(SIG_BLOCK, nullptr, &host);
  EXPECT_TRUE(sigismember(&host, SIGUSR2));
  EXPECT_EQ(sc(X86_NR_rt_sigprocmask, SIG_SETMASK, addr(&old), 0, 8), 0);
  sigprocmask(SIG_BLOCK, nullptr, &host);
  EXPECT_FALSE(sigismember(&host, SIGUSR2));
}

// SIGSEGV and SIGBUS stay unblocked on the host (phybin's own faults use
// them); the guest still sees its own mask.
TEST_F(SyscallTest, RtSigprocmaskKeepsSigsegvOnlyInTheGuestsView) {
  const uint64_t segv_usr2 = (uint64_t{1} << (SIGSEGV - 1)) | (uint64_t{1} << (SIGUSR2 - 1));
  uint64_t old = 0, now = 0;
  ASSERT_EQ(sc(X86_NR_rt_sigprocmask, SIG_BLOCK, addr(&segv_usr2), addr(&old), 8), 0);
  sigset_t host;
  sigprocmask(SIG_BLOCK, nullptr, &host);
  EXPECT_FALSE(sigismember(&host, SIGSEGV));
  EXPECT_TRUE(sigismember(&host, SIGUSR2));
  ASSERT_EQ(sc(X86_NR_rt_sigprocmask, SIG_BLOCK, 0, addr(&now), 8), 0);
  EXPECT_EQ(now & segv_usr2, segv_usr2);
  EXPECT_EQ(sc(X86_NR_rt_sigprocmask, 7, addr(&segv_usr2), 0, 8), -EINVAL);
  ASSERT_EQ(sc(X86_NR_rt_sigprocmask, SIG_SETMASK, addr(&old), 0, 8), 0);
  ASSERT_EQ(sc(X86_NR_rt_sigprocmask, SIG_BLOCK, 0, addr(&now), 8), 0);
  EXPECT_EQ(now & segv_usr2, 0u);
}

// rt_sigpending adds what the runtime holds (a SIGSEGV sent while blocked).
TEST_F(SyscallTest, RtSigpendingShowsSignalsTheRuntimeHolds) {
  uint64_t pending = ~uint64_t{0};
  ASSERT_EQ(sc(X86_NR_rt_sigpending, addr(&pending), 8), 0);
  EXPECT_EQ(pending & (uint64_t{1} << (SIGSEGV - 1)), 0u);
  thread_signals().held_runtime_signals = uint64_t{1} << (SIGSEGV - 1);
  ASSERT_EQ(sc(X86_NR_rt_sigpending, addr(&pending), 8), 0);
  thread_signals().held_runtime_signals = 0;
  EXPECT_NE(pending & (uint64_t{1} << (SIGSEGV - 1)), 0u);
  EXPECT_EQ(sc(X86_NR_rt_sigpending, addr(&pending), 16), -EINVAL);
}

// With the runtime's "signal pending" flag set, a call that could block
// does not start: the runtime delivers the signal and runs it again.
TEST_F(SyscallTest, PendingGuestSignalStopsACallBeforeItStarts) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  char c = 0;
  GuestState st{};
  st.gpr[RAX] = X86_NR_read;
  st.gpr[RDI] = static_cast<uint64_t>(fds[0]);
  st.gpr[RSI] = addr(&c);
  st.gpr[RDX] = 1;
  volatile sig_atomic_t pending = 1;
  handle_syscall(st, &pending);  // the pipe is empty: natively this read would block
  EXPECT_EQ(static_cast<int64_t>(st.gpr[RAX]), kSyscallNotStarted);
  ASSERT_EQ(write(fds[1], "y", 1), 1);
  pending = 0;
  st.gpr[RAX] = X86_NR_read;
  handle_syscall(st, &pending);
  EXPECT_EQ(st.gpr[RAX], 1u);
  EXPECT_EQ(c, 'y');
  close(fds[0]);
  close(fds[1]);
}

TEST_F(SyscallTest, SigaltstackIsRecorded) {
  static char stack[16384];
  X86StackT set{addr(stack), 0, 0, sizeof stack}, old{};
  ASSERT_EQ(sc(X86_NR_sigaltstack, addr(&set), addr(&old)), 0);
  EXPECT_EQ(old.ss_flags, kX86SsDisable);
  X86StackT now{};
  ASSERT_EQ(sc(X86_NR_sigaltstack, 0, addr(&now)), 0);
  EXPECT_EQ(now.ss_sp, addr(stack));
  EXPECT_EQ(now.ss_size, sizeof stack);
  EXPECT_EQ(now.ss_flags, 0);
  X86StackT tiny{addr(stack), 0, 0, 100};
  EXPECT_EQ(sc(X86_NR_sigaltstack, addr(&tiny), 0), -ENOMEM);
  X86StackT off{0, kX86SsDisable, 0, 0};
  ASSERT_EQ(sc(X86_NR_sigaltstack, addr(&off), 0), 0);
  ASSERT_EQ(sc(X86_NR_sigaltstack, 0, addr(&now)), 0);
  EXPECT_EQ(now.ss_flags, kX86SsDisable);
}

// execve checks what the kernel checks before it looks at the file's
// format (the x86-64 case starts phybin again: guest tests cover it).
TEST_F(SyscallTest, ExecveErrorsAreTheKernels) {
  const char* argv[] = {"x", nullptr};
  EXPECT_EQ(sc(X86_NR_execve, addr(path("missing").c_str()), addr(argv), 0), -ENOENT);
  EXPECT_EQ(sc(X86_NR_execve, addr(exe_.c_str()), addr(argv), 0), -EACCES);  // mode 0644
  const char* bad_argv[] = {"x", reinterpret_cast<const char*>(16), nullptr};
  EXPECT_EQ(sc(X86_NR_execve, addr(path("missing").c_str()), addr(bad_argv), 0), -ENOENT);
  ASSERT_EQ(chmod(exe_.c_str(), 0755), 0);  // no known format: the strings are read first
  EXPECT_EQ(sc(X86_NR_execve, addr(exe_.c_str()), addr(bad_argv), 0), -EFAULT);
  EXPECT_EQ(sc(X86_NR_execve, 8, addr(argv), 0), -EFAULT);
  EXPECT_EQ(sc(X86_NR_execveat, static_cast<uint64_t>(AT_FDCWD), addr(""), addr(argv), 0, 0), -ENOENT);
}

// clone3's argument checks, as the kernel makes them; what clone cannot
// express is ENOSYS (glibc then uses clone).
TEST_F(SyscallTest, Clone3ChecksItsArguments) {
  uint64_t args[16] = {};  // struct clone_args, zeroes past it
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 56), -EINVAL);  // smaller than the first version
  EXPECT_EQ(sc(X86_NR_clone3, 8, 88), -EFAULT);
  args[0] = CLONE_PIDFD;
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 88), -ENOSYS);
  args[0] = 0;
  args[9] = 1;  // set_tid_size
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 88), -ENOSYS);
  args[9] = 0;
  args[4] = 0x100;  // exit_signal out of range
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 88), -EINVAL);
  args[4] = SIGCHLD;
  args[0] = SIGCHLD;  // a signal in the flags is clone's way, not clone3's
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 88), -EINVAL);
  args[0] = 0;
  args[5] = 0x10000;  // a stack without its size
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 88), -EINVAL);
  args[5] = 0;
  args[12] = 1;  // nonzero past the struct phybin knows
  EXPECT_EQ(sc(X86_NR_clone3, addr(args), 104), -E2BIG);
}

TEST_F(SyscallTest, UnsupportedCallsAnswerEnosysAndWarnOnce) {
  log_configure(1, "");
  testing::internal::CaptureStderr();
  EXPECT_EQ(sc(9999), -ENOSYS);
  EXPECT_EQ(sc(X86_NR_modify_ldt), -ENOSYS);
  EXPECT_EQ(sc(X86_NR_modify_ldt), -ENOSYS);
  EXPECT_EQ(sc(X86_NR_iopl), -ENOSYS);
  EXPECT_EQ(sc(X86_NR_ioperm, 0x80, 1, 1), -ENOSYS);
  const std::string err = testing::internal::GetCapturedStderr();
  log_configure(0, "");
  const std::string fork_line =
      "phybin: warning 0x1004 (PHYBIN_ERR_UNKNOWN_SYSCALL): system call modify_ldt (154) is not "
      "supported, returning ENOSYS\n";
  const size_t at = err.find(fork_line);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(fork_line, at + 1), std::string::npos) << "logged twice: " << err;
  EXPECT_NE(err.find("system call unknown (9999) is not supported"), std::string::npos);
  EXPECT_NE(err.find("system call ioperm (173)"), std::string::npos);
  // At log level 0 nothing is printed.
  testing::internal::CaptureStderr();
  EXPECT_EQ(sc(X86_NR_iopl), -ENOSYS);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  // Only RAX's low 32 bits name the call, as on x86-64.
  EXPECT_EQ(sc((uint64_t{1} << 32) | X86_NR_getpid), getpid());
}

TEST_F(SyscallTest, DebugLevelTracesEachCall) {
  log_configure(3, "");
  testing::internal::CaptureStderr();
  sc(X86_NR_getppid);
  const std::string err = testing::internal::GetCapturedStderr();
  log_configure(0, "");
  EXPECT_NE(err.find("syscall getppid(0x0,"), std::string::npos) << err;
}

TEST_F(SyscallTest, ExitGroupEndsTheProcessWithTheStatus) {
  EXPECT_EXIT(sc(X86_NR_exit_group, 7), testing::ExitedWithCode(7), "before_exit 7");
  EXPECT_EXIT(sc(X86_NR_exit, 3), testing::ExitedWithCode(3), "");
}

}  // namespace
}  // namespace phybin::sys
